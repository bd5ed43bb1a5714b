// run-suite: shares a process
// The bench's page generator (bench/performance-doc.ts): a results file without some sections (a
// partial run, an engine never run) still gives a whole page that says how to measure what is
// missing, and a template or README it cannot fill is refused rather than written half-done.
import { mkdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { benchDocs, writeBenchDocs } from '../../bench/performance-doc-files.js'
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

t.test('an OTLP section, when a run wrote one, is said with its bounds', async t => {
  const cpu = (totalUs: number): { requestUs: number, writerUs: number, restUs: number, totalUs: number } => ({ requestUs: totalUs / 2, writerUs: totalUs / 4, restUs: totalUs / 4, totalUs })
  const otlp = { rate: 2000, rounds: 3, modes: { 'profiler off (baseline)': cpu(100), 'profiler on': cpu(200), 'profiler on + OTLP export': cpu(205) }, otelAddsUs: 50, exportAddsUs: 5, exportPerProfileUs: 5, ratioToFastifyOtel: 0.1, holds: { ratio: true, perProfile: true } }
  const page = performanceDoc(template, { sqlite: { otlp }, postgres: {} })
  t.match(page, 'profiler on + OTLP export 205.0')
  t.match(page, 'The export adds +5.0 (+5.0 a kept profile: holds), 0.10× what `@fastify/otel` adds (+50.0: holds)')
  t.match(page, /\| OTLP export: [^\n]* \| 0\.10×, \+5\.0 µs a profile \| yes \|/)
})

t.test('writing the docs writes what benchDocs says, into the checkout it is given', async t => {
  const root = t.testdir({
    bench: { 'performance.template.md': template, 'results.json': readFileSync(join(packageRoot, 'bench', 'results.json'), 'utf8') },
    'README.md': 'x\n<!-- results: readme-recording -->\n<!-- /results -->\n'
  })
  mkdirSync(join(root, 'docs'))
  t.same(writeBenchDocs(root), [join('docs', 'performance.md'), 'README.md'])
  for (const { path, text } of benchDocs(root)) t.equal(readFileSync(join(root, path), 'utf8'), text, path)
  t.match(readFileSync(join(root, 'docs', 'performance.md'), 'utf8'), '`npm run bench -- --only=recording` (and `--store=postgres`)', 'no PostgreSQL file: the page is still whole')
})
