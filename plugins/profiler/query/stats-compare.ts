// Deployment A against deployment B, per route: each one's figures as it alone answers them, and
// the difference of each percentile, marked when one is slower beyond what the histograms can tell.
import { STATUS_CODES } from 'node:http'
import { PERCENTILE_ERROR } from '../stats/histogram.js'
import type { RouteStats } from '../stats/rollup.js'
import { formatMs, roundMs } from '../units.js'

/** One deployment's figures of a line (null in the comparison: no request of it in the window). */
export interface ComparedFigures { count: number, p50Ms: number, p95Ms: number, p99Ms: number }

/** B's percentile minus A's, and which deployment is slower beyond the histograms' error (null: neither is, as far as they tell). */
interface PercentileDifference { diffMs: number | null, slower: string | null }

export interface ComparisonLine {
  route: string | null
  method: string | null
  status: number | null
  a: ComparedFigures | null
  b: ComparedFigures | null
  p50: PercentileDifference
  p95: PercentileDifference
  p99: PercentileDifference
}

/**
 * Each percentile read is within PERCENTILE_ERROR of the exact one, either way: the exact value
 * lies in [read / (1 + e), read × (1 + e)]. So `slow` is surely slower than `fast` only when even
 * its lowest possible exact value is above the other's highest.
 */
function slowerBeyondError (slow: number, fast: number): boolean {
  return slow / (1 + PERCENTILE_ERROR) > fast * (1 + PERCENTILE_ERROR)
}

const keyOf = (line: RouteStats): string => `${line.status ?? 0} ${line.method ?? ''} ${line.route ?? ''}`
const figures = (line: RouteStats | undefined): ComparedFigures | null =>
  line === undefined ? null : { count: line.count, p50Ms: line.p50Ms, p95Ms: line.p95Ms, p99Ms: line.p99Ms }

function difference (a: number | undefined, b: number | undefined, nameA: string, nameB: string): PercentileDifference {
  if (a === undefined || b === undefined) return { diffMs: null, slower: null }
  return { diffMs: roundMs(b - a), slower: slowerBeyondError(b, a) ? nameB : slowerBeyondError(a, b) ? nameA : null }
}

/** The lines of A and of B side by side (a line either one lacks has null figures there), the slowest p95 of the two first. */
export function compareLines (linesA: RouteStats[], linesB: RouteStats[], nameA: string, nameB: string): ComparisonLine[] {
  const pairs = new Map<string, { a?: RouteStats, b?: RouteStats }>()
  for (const a of linesA) pairs.set(keyOf(a), { a })
  for (const b of linesB) pairs.set(keyOf(b), { ...pairs.get(keyOf(b)), b })
  const slowest = ({ a, b }: { a?: RouteStats, b?: RouteStats }): number => Math.max(a?.p95Ms ?? 0, b?.p95Ms ?? 0)
  return [...pairs.values()].sort((x, y) => slowest(y) - slowest(x) || keyOf((x.a ?? x.b) as RouteStats).localeCompare(keyOf((y.a ?? y.b) as RouteStats))).map(({ a, b }) => {
    const line = (a ?? b) as RouteStats
    return {
      route: line.route,
      method: line.method,
      status: line.status,
      a: figures(a),
      b: figures(b),
      p50: difference(a?.p50Ms, b?.p50Ms, nameA, nameB),
      p95: difference(a?.p95Ms, b?.p95Ms, nameA, nameB),
      p99: difference(a?.p99Ms, b?.p99Ms, nameA, nameB)
    }
  })
}

/** A line's route (or that none matched), method and status, for people. */
export function lineLabels (line: Pick<RouteStats, 'route' | 'method' | 'status'>) {
  return {
    label: line.route ?? '(no route matched)',
    methodText: line.method ?? 'any',
    statusText: line.status === null ? null : `${line.status} ${STATUS_CODES[line.status] ?? ''}`.trim()
  }
}

const PERCENTILES = ['p50', 'p95', 'p99'] as const
const signedMs = (ms: number | null): string => ms === null ? '' : `${ms < 0 ? '-' : '+'}${formatMs(Math.abs(ms))}`

/** A comparison line's cells for people (the page and the command line): each figure, each difference, and who is slower where. */
export function comparisonText (line: ComparisonLine) {
  const figure = (side: ComparedFigures | null, key: 'p50Ms' | 'p95Ms' | 'p99Ms'): string => side === null ? '' : formatMs(side[key])
  const slower = new Map<string, string[]>()
  for (const name of PERCENTILES) {
    const who = line[name].slower
    if (who !== null) slower.set(who, [...slower.get(who) ?? [], name])
  }
  return {
    ...lineLabels(line),
    countA: line.a === null ? '' : String(line.a.count),
    countB: line.b === null ? '' : String(line.b.count),
    cells: PERCENTILES.map(name => ({
      name,
      a: figure(line.a, `${name}Ms`),
      b: figure(line.b, `${name}Ms`),
      diff: signedMs(line[name].diffMs),
      slower: line[name].slower
    })),
    /** "B slower: p95, p99"; empty when neither is, beyond the error. */
    slowerText: [...slower].map(([who, names]) => `${who} slower: ${names.join(', ')}`).join('; ')
  }
}
