// The bench's page generator (bench/performance-doc.ts): a results file without some sections (a
// partial run, an engine never run) still gives a whole page that says how to measure what is
// missing, and a template or README it cannot fill is refused rather than written half-done.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { performanceDoc, readmeFigures, type BenchResults } from '../../bench/performance-doc.js'
import { packageRoot } from '../../paths.js'

const template = readFileSync(join(packageRoot, 'bench', 'performance.template.md'), 'utf8')
const committed = (name: string): BenchResults => JSON.parse(readFileSync(join(packageRoot, 'bench', name), 'utf8')) as BenchResults

t.test('no results at all: every section says which command measures it', async t => {
  const page = performanceDoc(template, { sqlite: {}, postgres: {} })
  t.notMatch(page, /<!-- results:/, 'every marker replaced')
  t.notMatch(page, /undefined|NaN/)
  for (const section of ['recording', 'otlp', 'cpu', 'panels', 'hooks', 'sampling', 'store', 'search', 'pages', 'burst', 'suite']) {
    t.match(page, `\`npm run bench -- --only=${section}\` measures it`, section)
  }
})

t.test('one engine only, and the committed results: no hole in any table', async t => {
  const sqlite = committed('results.json')
  for (const engines of [{ sqlite, postgres: {} }, { sqlite: {}, postgres: committed('results-postgres.json') }, { sqlite, postgres: committed('results-postgres.json') }]) {
    const page = performanceDoc(template, engines)
    t.notMatch(page, /undefined|NaN|Infinity/)
    t.notMatch(page, /<!-- results:/)
  }
})

t.test('a marker the generator does not know, or a README without its block, is refused', async t => {
  t.throws(() => performanceDoc('<!-- results: nonsense -->\n', { sqlite: {}, postgres: {} }), /no section called "nonsense"/)
  t.throws(() => readmeFigures('# README\n', { sqlite: {}, postgres: {} }), /README.md: no/)
  const readme = readmeFigures('a\n<!-- results: readme-recording -->\nold\n<!-- /results -->\nb\n', { sqlite: committed('results.json'), postgres: {} })
  t.notMatch(readme, /\nold\n/, 'the block is replaced')
  t.match(readme, /^a\n<!-- results: readme-recording -->\n[\s\S]*\| profiler, every request kept \| \+[\d.]+ µs[\s\S]*\n<!-- \/results -->\nb\n$/)
})
