// docs/performance.md from the bench's results: the template's text (bench/performance.template.md)
// with each `<!-- results: name -->` line replaced by that section's tables, rendered from
// bench/results.json (SQLite) and bench/results-postgres.json. Pure: the same inputs, the same page.
// A section the results do not hold says how to measure it instead of showing a figure.

/** µs of CPU per request, by thread, as every CPU section records a mode. */
interface Cpu { requestUs: number, writerUs: number, restUs: number, totalUs: number, writerPerProfileUs?: number | null, databaseUs?: number, keptShare?: number }
interface Timing { p50: number, p99: number }
interface SearchRow { query: string, small?: { inProcess: Timing, http: Timing }, large?: { inProcess: Timing, http: Timing }, ratioP99InProcess: number, ratioP99Http: number }
interface Mix { rounds: Array<{ off: number, on: number, ratio: number }>, medianRatio: number, fixedRate: number, latencyMs: { off: Timing, on: Timing, p99DeltaMs: number } }
interface PollRun { requestsPerSecond: number, p99: number, non2xx: number, ratio?: number, pages?: PollRun }

/** What run.ts writes, each section optional (a file may hold only some). */
export interface BenchResults {
  machine?: { nproc: number, cpu: string, node: string, date: string, quick: boolean, seconds: number, rounds: number }
  /** When and how each section was measured (a partial run updates its own); absent for sections measured before it was recorded. */
  sectionRuns?: Record<string, SectionRun>
  store?: { writesPerSecondIntoEmpty: number | null, writesPerSecondIntoLarge: number, largeStoreProfiles: number, bytesOnDiskPerProfile: number }
  cpu?: { rate: number, fresh: Record<string, Cpu>, large: Record<string, Cpu> }
  cpuBeforeAfter?: { revision: string, rate: number, rounds: number, modes: Record<string, Cpu>, requestThreadGrowthUs: number, requestThreadGrowthPerRoundUs: number[], profilerPartGrowthUs: number, boundUs: number, holds: boolean }
  panelsInProcess?: { rounds: number, requests: number, before: { requestUs: number, allocatedKb: number }, after: { requestUs: number, allocatedKb: number } }
  hookTiming?: { runsPerRequest: number, rounds: number, requests: number, untimedUs: number, timedUs: number, growthUs: number, perRunUs: number, ratio: number }
  sampling?: { rate: number, rounds: number, modes: Record<string, Cpu>, requestThreadAddedUs: { sampled001: number, logging: number }, allThreadsAddedUs: { sampled001: number, logging: number }, sampledMinusLoggingPerRoundUs: number[], holds: boolean }
  recording?: { rate: number, rounds: number, modes: Record<string, Cpu>, bytesOnDiskPerProfile: number | null, addedUs: Record<string, number>, holds: Array<{ line: string, holds: boolean | null }> }
  otlp?: { rate: number, rounds: number, modes: Record<string, Cpu>, otelAddsUs: number, exportAddsUs: number, exportPerProfileUs: number, ratioToFastifyOtel: number | null, holds: { ratio: boolean, perProfile: boolean }, pairedPerProfileUs?: { all: number[] }, pairedSpreadUs?: number[] }
  search?: { sizes: { small: number, large: number }, rows: SearchRow[] }
  throughput?: Record<string, Mix>
  memory?: { requests: number, rssBeforeMB: number, rssAfterMB: number, growthMB: number, errors: number }
  suite?: { moduleLoading: { plainMs: number, tapHooksMs: number, tapHooksTypeboxPreloadedMs: number }, pollClient: { httpUsPerRequest: number, fetchUsPerRequest: number, fetchRatio: number }, appBuilds: { firstAppMs: number, laterAppMs: number } }
  pages?: { profiles: number, pollAlone: PollRun, besideSearch: PollRun, besideHar: PollRun }
  burst?: Array<{ maxBytes: number, connections: number, requests: number, requestsPerSecond: number, peakUsedBytes: number, peakAtSeconds: number, finalUsedBytes: number, finalProfiles: number, maxProfiles: number, minProfilesOnceFull: number }>
}

interface SectionRun { date: string, seconds: number, rounds: number, quick: boolean }

export interface Engines { sqlite: BenchResults, postgres: BenchResults }

const ENGINES = [['sqlite', 'SQLite'], ['postgres', 'PostgreSQL']] as const
const ROUTE_STATS = 'route statistics (7d)'

const num = (value: number, digits = 1): string => value.toLocaleString('en', { minimumFractionDigits: digits, maximumFractionDigits: digits })
const whole = (value: number): string => Math.round(value).toLocaleString('en')
const signed = (value: number, digits = 1): string => `${value < 0 ? '−' : '+'}${num(Math.abs(value), digits)}`
const yesNo = (holds: boolean | null | undefined): string => holds === true ? 'yes' : holds === false ? '**no**' : '-'
const row = (cells: Array<string | number>): string => `| ${cells.join(' | ')} |`
const header = (cells: string[]): string[] => [row(cells), row(cells.map(() => '---'))]
const missing = (command: string): string[] => [`*Not in the committed results: \`${command}\` measures it.*`]

const runText = (run: SectionRun): string => `${run.date.slice(0, 16).replace('T', ' ')} UTC (${run.seconds} s runs, ${run.rounds} rounds${run.quick ? ', `--quick`' : ''})`

/** Each engine's sections grouped by the run that measured them; sections older than the record, said as such. */
function runsOf (name: string, results: BenchResults): string[] {
  const sections = Object.keys(results).filter(key => key !== 'machine' && key !== 'sectionRuns')
  if (sections.length === 0) return []
  const byRun = new Map<string, string[]>()
  const undated: string[] = []
  for (const section of sections) {
    const run = results.sectionRuns?.[section]
    if (run === undefined) undated.push(section)
    else byRun.set(runText(run), [...byRun.get(runText(run)) ?? [], section])
  }
  const parts = [...byRun].map(([when, names]) => `${names.join(', ')} ${when}`)
  if (undated.length > 0) parts.push(`${undated.join(', ')} earlier (not dated)`)
  return [`${name}: ${parts.join('; ')}`]
}

function machine ({ sqlite, postgres }: Engines): string[] {
  const said = ENGINES.flatMap(([key, name]) => runsOf(name, ({ sqlite, postgres })[key]))
  const m = sqlite.machine ?? postgres.machine
  if (m === undefined) return ['Not in the committed results.']
  return [`${m.nproc} cores, ${m.cpu}, Node ${m.node}. Measured: ${said.join('; ')}.`]
}

/** The worst in-process and HTTP p99 at the large size, over the filters (route statistics apart). */
function worstSearch (results: BenchResults): { inProcess: number, http: number, over3: string[], stats?: SearchRow } | undefined {
  const rows = results.search?.rows
  if (rows === undefined) return undefined
  const filters = rows.filter(r => r.query !== ROUTE_STATS)
  return {
    inProcess: Math.max(...filters.map(r => r.large?.inProcess.p99 ?? 0)),
    http: Math.max(...filters.map(r => r.large?.http.p99 ?? 0)),
    over3: filters.filter(r => r.ratioP99InProcess > 3).map(r => `${r.query}: ${num(r.ratioP99InProcess, 2)}×`),
    stats: rows.find(r => r.query === ROUTE_STATS)
  }
}

interface Target { what: string, figure: (r: BenchResults) => { text: string, holds: boolean | null } | undefined }

const ratioRounds = (mix: Mix): string => `${Math.round(mix.medianRatio * 100)}% (rounds ${mix.rounds.map(r => num(r.ratio, 3)).join(', ')})`
const TARGETS: Target[] = [
  { what: 'seed-like mix: profiled throughput ≥ 70% of unprofiled', figure: r => r.throughput?.['seed-like'] === undefined ? undefined : { text: ratioRounds(r.throughput['seed-like']), holds: r.throughput['seed-like'].medianRatio >= 0.7 } },
  { what: 'unknown paths only: ≥ 50%', figure: r => r.throughput?.['unknown-paths'] === undefined ? undefined : { text: ratioRounds(r.throughput['unknown-paths']), holds: r.throughput['unknown-paths'].medianRatio >= 0.5 } },
  {
    what: 'p99 at half the unprofiled maximum: profiled ≤ unprofiled + 2 ms',
    figure: r => {
      if (r.throughput === undefined) return undefined
      const mixes = Object.entries(r.throughput)
      return { text: mixes.map(([name, m]) => `${name} ${m.latencyMs.off.p99} → ${m.latencyMs.on.p99} ms`).join('; '), holds: mixes.every(([, m]) => m.latencyMs.p99DeltaMs <= 2) }
    }
  },
  { what: 'every search filter at 1M: p99 ≤ 10 ms in process', figure: r => { const w = worstSearch(r); return w && { text: `worst ${num(w.inProcess, 2)} ms`, holds: w.inProcess <= 10 } } },
  { what: 'listing page over HTTP at 1M: p99 ≤ 50 ms', figure: r => { const w = worstSearch(r); return w && { text: `worst ${num(w.http, 2)} ms`, holds: w.http <= 50 } } },
  { what: "each filter's p99 at 1M ≤ 3× its p99 at 10k, in process", figure: r => { const w = worstSearch(r); return w && { text: w.over3.length === 0 ? 'all' : `all but ${w.over3.join(', ')}`, holds: w.over3.length === 0 } } },
  { what: 'route statistics page (7 days) at 1M: p99 ≤ 50 ms over HTTP', figure: r => { const s = worstSearch(r)?.stats?.large; return s && { text: `${num(s.http.p99, 1)} ms (p50 ${num(s.http.p50, 1)})`, holds: s.http.p99 <= 50 } } },
  { what: 'RSS growth over 1,000,000 profiled requests ≤ 50 MB', figure: r => r.memory && { text: `${num(r.memory.growthMB)} MB (${num(r.memory.rssBeforeMB)} → ${num(r.memory.rssAfterMB)}, ${whole(r.memory.requests)} requests, ${r.memory.errors} errors)`, holds: r.memory.growthMB <= 50 } },
  { what: 'status poll beside the costliest pages ≥ 0.70 of alone', figure: r => r.pages && { text: `${num(r.pages.besideSearch.ratio ?? 0, 2)} beside the search, ${num(r.pages.besideHar.ratio ?? 0, 2)} beside the HAR export`, holds: Math.min(r.pages.besideSearch.ratio ?? 0, r.pages.besideHar.ratio ?? 0) >= 0.7 } },
  { what: 'recording every request (issue 38): [its bounds](#what-recording-costs)', figure: r => r.recording && { text: `${r.recording.holds.filter(h => h.holds === true).length} of ${r.recording.holds.length} hold`, holds: r.recording.holds.every(h => h.holds === true) } },
  { what: "`PROFILER_SAMPLE=0.01`: request thread's added CPU ≤ logging's", figure: r => r.sampling && { text: `${signed(r.sampling.requestThreadAddedUs.sampled001)} µs against ${signed(r.sampling.requestThreadAddedUs.logging)}`, holds: r.sampling.holds } },
  { what: 'the panels: request thread, profiler on, ≤ +5 µs over the build before them', figure: r => r.cpuBeforeAfter && { text: `${signed(r.cpuBeforeAfter.requestThreadGrowthUs)} µs`, holds: r.cpuBeforeAfter.holds } },
  { what: 'OTLP export: ≤ 0.3× what `@fastify/otel` adds, ≤ 10 µs a kept profile', figure: r => r.otlp && { text: `${r.otlp.ratioToFastifyOtel === null ? '-' : `${num(r.otlp.ratioToFastifyOtel, 2)}×`}, ${signed(r.otlp.exportPerProfileUs)} µs a profile`, holds: r.otlp.holds.ratio && r.otlp.holds.perProfile } }
]

function targets ({ sqlite, postgres }: Engines): string[] {
  const lines = header(['target', 'SQLite', 'met?', 'PostgreSQL', 'met?'])
  for (const target of TARGETS) {
    const cells = [sqlite, postgres].flatMap(results => {
      const figure = target.figure(results)
      return figure === undefined ? ['not measured', '-'] : [figure.text, yesNo(figure.holds)]
    })
    lines.push(row([target.what, ...cells]))
  }
  return lines
}

function recording ({ sqlite, postgres }: Engines): string[] {
  const s = sqlite.recording
  const p = postgres.recording
  if (s === undefined && p === undefined) return missing('npm run bench -- --only=recording')
  const modes = Object.keys(s?.modes ?? p?.modes ?? {})
  const [baseline, logging] = modes
  const times = (r: typeof s, mode: string): string => {
    const log = logging === undefined ? undefined : r?.addedUs[logging]
    return r === undefined || log === undefined || log <= 0 ? '-' : num((r.addedUs[mode] ?? 0) / log, 2)
  }
  const detail = (r: typeof s, mode: string): string => {
    const m = r?.modes[mode]
    const base = baseline === undefined ? undefined : r?.modes[baseline]
    if (m === undefined || base === undefined) return '-'
    const writer = m.writerPerProfileUs === null || m.writerPerProfileUs === undefined || (m.keptShare ?? 0) < 0.5 ? '' : `; writer ${num(m.writerPerProfileUs)} a profile`
    const databaseAdds = (m.databaseUs ?? 0) - (base.databaseUs ?? 0)
    const database = Math.abs(databaseAdds) >= 0.05 ? `; database server ${signed(databaseAdds)}` : ''
    return `request thread ${signed(m.requestUs - base.requestUs)}${writer}${database}`
  }
  const lines = header([`µs a request added to off, all threads (${whole(s?.rate ?? p?.rate ?? 0)} req/s, ${s?.rounds ?? p?.rounds} rounds)`, 'SQLite', '× logging', 'of it', 'PostgreSQL', '× logging', 'of it'])
  for (const mode of modes.slice(1)) {
    lines.push(row([mode, s === undefined ? '-' : signed(s.addedUs[mode] ?? 0), times(s, mode), detail(s, mode), p === undefined ? '-' : signed(p.addedUs[mode] ?? 0), times(p, mode), detail(p, mode)]))
  }
  const held = defaultsHold(s)
  lines.push('', held === null ? 'The bounds, as each run printed them:' : `${held} A large body that does not compress takes about its size. The bounds, as each run printed them:`)
  return [...lines, '', ...boundsTable({ SQLite: s?.holds ?? [], PostgreSQL: p?.holds ?? [] })]
}

/** The bounds' lines of each engine ("what: value (bound b): holds") as one table, a row per bound. */
function boundsTable (byEngine: Record<string, Array<{ line: string, holds: boolean | null }>>): string[] {
  const LINE = /^(.*): ([^:]+ \(bound [^)]+\)): (.*)$/
  const rows = new Map<string, Record<string, string>>()
  for (const [engine, lines] of Object.entries(byEngine)) {
    for (const { line } of lines) {
      const [, what = line, value = '', verdict = ''] = LINE.exec(line) ?? []
      rows.set(what, { ...rows.get(what), [engine]: value === '' ? verdict : `${value}: ${verdict}` })
    }
  }
  const engines = Object.keys(byEngine)
  return [...header(['bound', ...engines]), ...[...rows].map(([what, cells]) => row([what, ...engines.map(engine => cells[engine] ?? '-')]))]
}

function otlp ({ sqlite }: Engines): string[] {
  const o = sqlite.otlp
  if (o === undefined) return missing('npm run bench -- --only=otlp')
  const all = Object.entries(o.modes).map(([mode, m]) => `${mode} ${num(m.totalUs)}`).join(', ')
  // The figure a kept profile comes from paired rounds (cpu-pair.ts), when the results have them.
  const paired = o.pairedPerProfileUs === undefined ? '' : ` A kept profile's figure is the median of ${o.pairedPerProfileUs.all.length} paired rounds, the profiler with and without the export taking the load in turns (rounds: ${o.pairedPerProfileUs.all.map(value => signed(value)).join(', ')} µs); the modes above ran one after the other.`
  return [`On SQLite (${whole(o.rate)} req/s, every request kept, ${o.rounds} rounds), µs a request on all threads: ${all}. The export adds ${signed(o.exportAddsUs)} (${signed(o.exportPerProfileUs)} a kept profile: ${o.holds.perProfile ? 'holds' : 'does not hold'}), ${o.ratioToFastifyOtel === null ? '-' : `${num(o.ratioToFastifyOtel, 2)}×`} what \`@fastify/otel\` adds (${signed(o.otelAddsUs)}: ${o.holds.ratio ? 'holds' : 'does not hold'}).${paired}`]
}

/** One table of both engines (or both stores): each mode's figures side by side. */
function sideBySide (title: string, columns: string[], sides: Array<[string, Record<string, Cpu> | undefined]>, cells: (m: Cpu, side: string) => string[]): string[] {
  const present = sides.filter((side): side is [string, Record<string, Cpu>] => side[1] !== undefined)
  const modes = Object.keys(present[0]?.[1] ?? {})
  const lines = header([title, ...present.flatMap(([name]) => columns.map(column => `${name}: ${column}`))])
  for (const mode of modes) lines.push(row([mode, ...present.flatMap(([name, figures]) => { const m = figures[mode]; return m === undefined ? columns.map(() => '-') : cells(m, name) })]))
  return lines
}

function cpu ({ sqlite, postgres }: Engines): string[] {
  const lines: string[] = []
  for (const [name, r] of [['SQLite', sqlite], ['PostgreSQL', postgres]] as const) {
    const c = r.cpu
    if (c === undefined) continue
    const large = r.store === undefined ? 'large' : `${r.store.largeStoreProfiles / 1_000_000}M`
    if (lines.length > 0) lines.push('')
    lines.push(...sideBySide(`${name}, ${whole(c.rate)} req/s`, ['request thread', 'writer', 'rest', 'all'], [['fresh', c.fresh], [large, c.large]], m => [num(m.requestUs), num(m.writerUs), num(m.restUs), num(m.totalUs)]))
  }
  return lines.length === 0 ? missing('npm run bench -- --only=cpu') : lines
}

function panels ({ sqlite, postgres }: Engines): string[] {
  const b = sqlite.cpuBeforeAfter ?? postgres.cpuBeforeAfter
  if (b === undefined) return missing('npm run bench -- --only=panels')
  const lines = [...sideBySide(`µs a request (${whole(b.rate)} req/s, ${b.rounds} rounds)`, ['request thread', 'writer', 'all'], [['SQLite', sqlite.cpuBeforeAfter?.modes], ['PostgreSQL', postgres.cpuBeforeAfter?.modes]], m => [num(m.requestUs), num(m.writerUs), num(m.totalUs)]), '']
  for (const [name, r] of [['SQLite', sqlite], ['PostgreSQL', postgres]] as const) {
    const a = r.cpuBeforeAfter
    if (a === undefined) continue
    const i = r.panelsInProcess
    const inProcess = i === undefined ? '' : ` In process: ${num(i.before.requestUs)} → ${num(i.after.requestUs)} µs (${signed(i.after.requestUs - i.before.requestUs)}), ${num(i.before.allocatedKb)} → ${num(i.after.allocatedKb)} KB allocated a request.`
    lines.push(`- ${name}, against \`${a.revision.split(' ')[0] ?? a.revision}\`: the request thread, profiler on, **${signed(a.requestThreadGrowthUs)} µs** (rounds ${a.requestThreadGrowthPerRoundUs.map(v => signed(v)).join(', ')}; bound +${a.boundUs}: ${a.holds ? 'holds' : 'does not hold'}).${inProcess}`)
  }
  return lines
}

function hooks ({ sqlite }: Engines): string[] {
  const h = sqlite.hookTiming
  if (h === undefined) return missing('npm run bench -- --only=hooks')
  return [`${num(h.untimedUs, 2)} → ${num(h.timedUs, 2)} µs a request (**${signed(h.growthUs, 2)}**, ${num(h.ratio, 3)}×) for ${h.runsPerRequest} timed runs: ${num(h.perRunUs, 3)} µs a run (${h.rounds} rounds of ${whole(h.requests)} requests).`]
}

function sampling ({ sqlite, postgres }: Engines): string[] {
  const s = sqlite.sampling
  const p = postgres.sampling
  if (s === undefined && p === undefined) return missing('npm run bench -- --only=sampling')
  const added = (r: typeof s, m: Cpu, key: 'requestUs' | 'totalUs'): string => signed(m[key] - (Object.values(r?.modes ?? {})[0]?.[key] ?? 0))
  const lines = [...sideBySide(`µs a request added to off (${whole(s?.rate ?? p?.rate ?? 0)} req/s)`, ['request thread', 'all threads', 'writer a profile', 'kept a request'], [['SQLite', s?.modes], ['PostgreSQL', p?.modes]], (m, side) => {
    const r = side === 'SQLite' ? s : p
    return [added(r, m, 'requestUs'), added(r, m, 'totalUs'), m.writerPerProfileUs == null ? '-' : num(m.writerPerProfileUs), num(m.keptShare ?? 0, 3)]
  }), '']
  for (const [name, r] of [['SQLite', s], ['PostgreSQL', p]] as const) {
    if (r !== undefined) lines.push(`- ${name} (${r.rounds} rounds): at 0.01 the request thread adds ${signed(r.requestThreadAddedUs.sampled001)} against logging's ${signed(r.requestThreadAddedUs.logging)} (${r.holds ? 'holds' : 'does not hold'}); round by round, 0.01 minus logging: ${r.sampledMinusLoggingPerRoundUs.map(v => signed(v)).join(', ')}.`)
  }
  return lines
}

function store ({ sqlite, postgres }: Engines): string[] {
  const s = sqlite.store
  const p = postgres.store
  if (s === undefined && p === undefined) return missing('npm run bench -- --only=store')
  const cell = (value: number | null | undefined): string => value == null ? '-' : whole(value)
  return [
    ...header(['`npm run bench -- --only=store` (before every section that needs the seeded store)', 'SQLite', 'PostgreSQL']),
    row(['profiles written a second, one writer thread, into an empty store', cell(s?.writesPerSecondIntoEmpty), cell(p?.writesPerSecondIntoEmpty)]),
    row([`the same into the ${whole(s?.largeStoreProfiles ?? p?.largeStoreProfiles ?? 0)}-profile store`, cell(s?.writesPerSecondIntoLarge), cell(p?.writesPerSecondIntoLarge)]),
    row(['bytes on disk a seeded profile at that size (a business profile: [What recording costs](#what-recording-costs))', cell(s?.bytesOnDiskPerProfile), cell(p?.bytesOnDiskPerProfile)])
  ]
}

function search ({ sqlite, postgres }: Engines): string[] {
  const s = sqlite.search
  const p = postgres.search
  if (s === undefined && p === undefined) return missing('npm run bench -- --only=search')
  const sizes = s?.sizes ?? p?.sizes ?? { small: 0, large: 0 }
  const k = (n: number): string => n >= 1_000_000 ? `${n / 1_000_000}M` : `${n / 1000}k`
  const [small, large] = [k(sizes.small), k(sizes.large)]
  const timing = (t: Timing | undefined): string => t === undefined ? '-' : `${num(t.p50, 2)} / ${num(t.p99, 2)}`
  const both = (a: string, b: string | undefined): string => b === undefined ? a : `${a} \\| ${b}`
  const lines = header(['query', `in process ${small}`, `in process ${large}`, `p99 ${large}/${small}`, `HTTP ${small}`, `HTTP ${large}`, `p99 ${large}/${small}`])
  for (const r of s?.rows ?? p?.rows ?? []) {
    const q = p?.rows.find(x => x.query === r.query)
    const pick = (x: SearchRow | undefined, f: (x: SearchRow) => string): string | undefined => x === undefined ? undefined : f(x)
    const cell = (f: (x: SearchRow) => string): string => s === undefined ? (pick(q, f) ?? '-') : both(f(r), pick(q, f))
    lines.push(row([r.query, cell(x => timing(x.small?.inProcess)), cell(x => timing(x.large?.inProcess)), cell(x => num(x.ratioP99InProcess, 2)), cell(x => timing(x.small?.http)), cell(x => timing(x.large?.http)), cell(x => num(x.ratioP99Http, 2))]))
  }
  return lines
}

function throughput ({ sqlite, postgres }: Engines): string[] {
  const lines = header(['', 'SQLite', 'PostgreSQL'])
  const mixes = Object.keys(sqlite.throughput ?? postgres.throughput ?? {})
  const cell = (r: BenchResults, f: (r: BenchResults) => string | undefined): string => f(r) ?? 'not measured'
  for (const mix of mixes) {
    lines.push(row([`${mix}: profiled / unprofiled req/s (rounds)`, ...[sqlite, postgres].map(r => cell(r, x => {
      const m = x.throughput?.[mix]
      return m && `**${num(m.medianRatio, 3)}** (${m.rounds.map(round => `${whole(round.on)} / ${whole(round.off)}`).join(', ')})`
    }))]))
    lines.push(row([`${mix}: p50 / p99 at half the unprofiled maximum, off → on`, ...[sqlite, postgres].map(r => cell(r, x => {
      const m = x.throughput?.[mix]
      return m && `${m.latencyMs.off.p50} / ${m.latencyMs.off.p99} → ${m.latencyMs.on.p50} / ${m.latencyMs.on.p99} ms at ${whole(m.fixedRate)} req/s`
    }))]))
  }
  lines.push(row(['RSS over the profiled requests', ...[sqlite, postgres].map(r => cell(r, x => x.memory && `${num(x.memory.rssBeforeMB)} → ${num(x.memory.rssAfterMB)} MB (${signed(x.memory.growthMB)}) over ${whole(x.memory.requests)}, ${x.memory.errors} errors`))]))
  return mixes.length === 0 && sqlite.memory === undefined && postgres.memory === undefined ? missing('npm run bench -- --only=throughput,memory') : lines
}

function pages ({ sqlite }: Engines): string[] {
  const p = sqlite.pages
  if (p === undefined) return missing('npm run bench -- --only=pages')
  const run = (r: PollRun): string => `${whole(r.requestsPerSecond)} req/s, p99 ${r.p99} ms`
  return [
    ...header([`SQLite, ${whole(p.profiles)} scanner profiles`, 'status poll', 'of alone', 'page clients']),
    row(['poll alone', run(p.pollAlone), '1', '-']),
    row(['beside the URL search', run(p.besideSearch), `**${num(p.besideSearch.ratio ?? 0, 2)}**`, p.besideSearch.pages === undefined ? '-' : `${run(p.besideSearch.pages)}, ${p.besideSearch.pages.non2xx} non-2xx`]),
    row(['beside the HAR export', run(p.besideHar), `**${num(p.besideHar.ratio ?? 0, 2)}**`, p.besideHar.pages === undefined ? '-' : `${run(p.besideHar.pages)}, ${p.besideHar.pages.non2xx} non-2xx`])
  ]
}

function burst ({ sqlite }: Engines): string[] {
  const runs = sqlite.burst
  if (runs === undefined) return missing('npm run bench -- --only=burst')
  const mb = (bytes: number, of: number): string => `${num(bytes / 1e6, 2)} MB (${Math.round(100 * bytes / of)}%)`
  const lines = header(['byte bound', 'connections', 'GETs', 'req/s', 'peak used (at)', 'after: used, profiles', 'profiles: most, fewest once full'])
  for (const r of runs) lines.push(row([`${r.maxBytes / 2 ** 20} MiB`, r.connections, whole(r.requests), whole(r.requestsPerSecond), `${mb(r.peakUsedBytes, r.maxBytes)}, ${r.peakAtSeconds} s`, `${mb(r.finalUsedBytes, r.maxBytes)}, ${whole(r.finalProfiles)}`, `${whole(r.maxProfiles)}, ${whole(r.minProfilesOnceFull)}`]))
  return lines
}

function suite ({ sqlite }: Engines): string[] {
  const s = sqlite.suite
  if (s === undefined) return missing('npm run bench -- --only=suite')
  return [
    `- importing the app: ${whole(s.moduleLoading.plainMs)} ms of CPU; under tap's coverage hooks ${whole(s.moduleLoading.tapHooksMs)} ms; with TypeBox preloaded ${whole(s.moduleLoading.tapHooksTypeboxPreloadedMs)} ms;`,
    `- building, warming and closing an app: ${num(s.appBuilds.firstAppMs)} ms the first in a process, ${num(s.appBuilds.laterAppMs)} ms after that;`,
    `- a load loop's request, client side: ${whole(s.pollClient.httpUsPerRequest)} µs through \`node:http\`, ${whole(s.pollClient.fetchUsPerRequest)} µs through \`fetch\` (${num(s.pollClient.fetchRatio, 2)}×).`
  ]
}

const notice = (): string[] => ['<!-- Generated by bench/performance-doc.ts from bench/results*.json and bench/performance.template.md (npm run bench:doc): edit those, not this file. -->']

const SECTIONS: Record<string, (engines: Engines) => string[]> = { notice, machine, targets, recording, otlp, cpu, panels, hooks, sampling, store, search, throughput, pages, burst, suite }
const MARKER = /<!-- results: ([a-z]+) -->/

/** The page: the template with each marker replaced by its section, from both engines' results. */
export function performanceDoc (template: string, engines: Engines): string {
  return template.split('\n').map(line => {
    const name = MARKER.exec(line)?.[1]
    if (name === undefined) return line
    const section = SECTIONS[name]
    if (section === undefined) throw new Error(`bench/performance.template.md: no section called "${name}"`)
    return line.replace(MARKER, section(engines).join('\n'))
  }).join('\n')
}

/** The README's short table: what recording costs on each engine, generated between its markers. */
export function readmeFigures (readme: string, engines: Engines): string {
  const start = '<!-- results: readme-recording -->'
  const end = '<!-- /results -->'
  const from = readme.indexOf(start)
  const to = readme.indexOf(end, from)
  if (from < 0 || to < 0) throw new Error(`README.md: no "${start}" … "${end}" block`)
  return `${readme.slice(0, from + start.length)}\n${readmeRecording(engines).join('\n')}\n${readme.slice(to)}`
}

/** How many profiles of the mix each default bound holds on SQLite, from the bytes a profile; null when not measured. */
function defaultsHold (s: BenchResults['recording']): string | null {
  if (s?.bytesOnDiskPerProfile == null) return null
  // The profiles' share of the default PROFILER_MAX_BYTES (256 MiB, 75%: the statistics get the rest).
  const fit = 0.75 * 256 * 2 ** 20 / s.bytesOnDiskPerProfile
  return `A stored profile of this mix takes **${whole(s.bytesOnDiskPerProfile)} bytes** on SQLite (file and WAL, a fresh store; the panels of a batch are compressed together): the default \`PROFILER_MAX_BYTES\` (256 MiB) holds about ${whole(Math.round(fit / 10_000) * 10_000)} of them, so ${fit > 100_000 ? 'the default `PROFILER_MAX_PROFILES` (100,000) binds first' : 'the byte bound binds before the default `PROFILER_MAX_PROFILES` (100,000)'}.`
}

function readmeRecording ({ sqlite, postgres }: Engines): string[] {
  const s = sqlite.recording
  const p = postgres.recording
  if (s === undefined && p === undefined) return missing('npm run bench -- --only=recording')
  const modes = Object.keys(s?.modes ?? p?.modes ?? {}).slice(1)
  const logging = modes[0]
  const cell = (r: typeof s, mode: string): string => {
    if (r === undefined) return '-'
    const log = logging === undefined ? 0 : r.addedUs[logging] ?? 0
    return `${signed(r.addedUs[mode] ?? 0)} µs${log > 0 && mode !== logging ? ` (${num((r.addedUs[mode] ?? 0) / log, 2)}× logging)` : ''}`
  }
  const held = defaultsHold(s)
  const date = (r: BenchResults): string => {
    const when = r.sectionRuns?.recording?.date ?? r.machine?.date
    return when === undefined ? '' : `, ${when.slice(0, 10)}`
  }
  return [
    `CPU of every thread added per request to the profiler off, ${whole(s?.rate ?? p?.rate ?? 0)} req/s of the seed-like mix (\`npm run bench -- --only=recording\`${date(sqlite)}; \`--store=postgres\`${date(postgres)}, the database server's CPU counted):`,
    '',
    ...header(['mode', 'SQLite', 'PostgreSQL']),
    ...modes.map(mode => row([mode, cell(s, mode), cell(p, mode)])),
    ...(held === null ? [] : ['', held])
  ]
}
