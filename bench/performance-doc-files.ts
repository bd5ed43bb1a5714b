// Where the bench's figures are read from and written to: bench/results*.json in, docs/performance.md
// and the README's table out (their text comes from bench/performance-doc.ts).
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { performanceDoc, readmeFigures, type BenchResults, type Engines } from './performance-doc.js'

const TEMPLATE = join('bench', 'performance.template.md')
const PAGE = join('docs', 'performance.md')
const README = 'README.md'

/** A results file, or no sections when it does not exist (a checkout that never ran that engine). */
function results (root: string, name: string): BenchResults {
  const path = join(root, 'bench', name)
  return existsSync(path) ? JSON.parse(readFileSync(path, 'utf8')) as BenchResults : {}
}

/** What docs/performance.md and README.md must hold, from the committed results and template. */
export function benchDocs (root: string): Array<{ path: string, text: string }> {
  const engines: Engines = { sqlite: results(root, 'results.json'), postgres: results(root, 'results-postgres.json') }
  return [
    { path: PAGE, text: performanceDoc(readFileSync(join(root, TEMPLATE), 'utf8'), engines) },
    { path: README, text: readmeFigures(readFileSync(join(root, README), 'utf8'), engines) }
  ]
}

/** Writes both; returns the paths written (relative to root). */
export function writeBenchDocs (root: string): string[] {
  const docs = benchDocs(root)
  for (const { path, text } of docs) writeFileSync(join(root, path), text)
  return docs.map(doc => doc.path)
}
