// run-suite: shares a process
// Generated alert rule files (PROFILER_ALERTS), read through loadConfig as the start reads them:
// every valid file loads with its values; every file made invalid by one generated fault stops the
// start with one line that names the rule (or webhook) and the field, and never repeats a URL or secret.
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import fc from 'fast-check'
import t from 'tap'
import { ConfigError, loadConfig } from '../../config.js'
import { freshDir } from '../helpers/dirs.js'

const SECRET = 'do-not-show-this-secret-0123'
const URL_TOKEN = 'T0SECRETPATH'

const duration = (minMs: number, maxMs: number) => fc.integer({ min: minMs, max: maxMs }).map(ms => ms % 1000 === 0 ? `${ms / 1000}s` : `${ms}ms`)
const ruleName = fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9 _.<>&"'-]{0,30}$/)

interface Rule { [field: string]: unknown, name: string, measure: string }

const plainRule = fc.record({
  route: fc.constantFrom('*', '/ccenter/getConseillerByCode', '/monitor/MonitorPooling', '/a/:id'),
  method: fc.option(fc.constantFrom('GET', 'POST', '*'), { nil: undefined }),
  deployment: fc.option(fc.constantFrom('A', 'B', 'eu-1'), { nil: undefined }),
  measure: fc.constantFrom('p50', 'p95', 'p99', '5xx', '4xx', 'count'),
  window: fc.option(duration(1000, 86_400_000), { nil: undefined }),
  minRequests: fc.option(fc.integer({ min: 1, max: 1000 }), { nil: undefined }),
  pendingFor: fc.option(duration(0, 600_000), { nil: undefined }),
  repeatEvery: fc.option(duration(1000, 86_400_000), { nil: undefined }),
  notify: fc.option(fc.subarray(['ops', 'chat']), { nil: undefined }),
  level: fc.double({ min: 0, max: 1, noNaN: true }),
  resolveShare: fc.option(fc.double({ min: 0, max: 1, noNaN: true }), { nil: undefined }),
  below: fc.boolean(),
  comparison: fc.boolean()
}).map(({ level, resolveShare, below, comparison, ...rule }) => {
  const out: Record<string, unknown> = Object.fromEntries(Object.entries(rule).filter(([, value]) => value !== undefined))
  if (comparison) {
    out.deployment = 'B'
    out.compareTo = 'A'
    out.ratio = 1 + level * 4
    if (resolveShare !== undefined) out.resolveBelow = 1 + level * 4 * resolveShare
  } else if (rule.measure === 'count') {
    const n = Math.round(level * 1000)
    out[below ? 'below' : 'above'] = n
    if (resolveShare !== undefined) out[below ? 'resolveAbove' : 'resolveBelow'] = below ? n + Math.round(resolveShare * 100) : Math.round(n * resolveShare)
  } else if (rule.measure === '5xx' || rule.measure === '4xx') {
    out.above = level
    if (resolveShare !== undefined) out.resolveBelow = level * resolveShare
  } else {
    const ms = Math.round(level * 5000)
    out.above = `${ms}ms`
    if (resolveShare !== undefined) out.resolveBelow = `${Math.floor(ms * resolveShare)}ms`
  }
  return out
})

const validFile = fc.record({
  evaluateEvery: fc.option(duration(100, 3_600_000), { nil: undefined }),
  rules: fc.uniqueArray(fc.tuple(ruleName, plainRule), { minLength: 0, maxLength: 8, selector: ([name]) => name })
    .map(pairs => pairs.map(([name, rule]) => ({ name, ...rule }) as Rule))
}).map(({ evaluateEvery, rules }) => ({
  ...(evaluateEvery === undefined ? {} : { evaluateEvery }),
  webhooks: {
    ops: { url: `https://hooks.example/${URL_TOKEN}/B000`, secret: SECRET },
    chat: { url: `http://127.0.0.1:9/${URL_TOKEN}`, secret: SECRET, timeout: '2s' }
  },
  rules
}))

type File = { rules: Rule[], webhooks: Record<string, Record<string, unknown>> } & Record<string, unknown>

/** One fault put into a valid file, and the words the line must hold (the rule or webhook, then the field). */
interface Fault { apply: (file: File) => void, names: (file: File) => string[] }

const onRule = (field: string, value: unknown): Fault => ({
  apply: file => { (file.rules[0] as Rule)[field] = value },
  names: file => [`rule "${(file.rules[0] as Rule).name}"`, `"${field}"`]
})
const withoutRuleField = (field: string): Fault => ({
  apply: file => { delete (file.rules[0] as Rule)[field] },
  names: file => [`rule "${(file.rules[0] as Rule).name}"`, `"${field}"`]
})

const ruleFaults: Fault[] = [
  onRule('measure', 'p90'),
  onRule('measure', 5),
  onRule('route', 'no-slash'),
  onRule('route', ''),
  onRule('method', 'get'),
  onRule('window', '5 minutes'),
  onRule('window', '2d'),
  onRule('window', 300),
  onRule('minRequests', 0),
  onRule('minRequests', 2.5),
  onRule('minRequests', '20'),
  onRule('pendingFor', '-1s'),
  onRule('repeatEvery', '0s'),
  onRule('notify', ['nobody']),
  onRule('notify', 'ops'),
  onRule('deployment', 'has space'),
  onRule('minRequest', 5),
  withoutRuleField('route'),
  withoutRuleField('measure'),
  {
    // A threshold of the wrong kind for the measure.
    apply: file => {
      const rule = file.rules[0] as Rule
      for (const field of ['above', 'below', 'ratio', 'resolveBelow', 'resolveAbove', 'compareTo']) delete rule[field]
      rule.deployment = 'B'
      rule.above = rule.measure.startsWith('p') ? 0.5 : '800ms'
    },
    names: file => [`rule "${(file.rules[0] as Rule).name}"`, '"above"']
  },
  {
    // The resolve threshold past the threshold.
    apply: file => {
      const rule = file.rules[0] as Rule
      for (const field of ['above', 'below', 'ratio', 'resolveBelow', 'resolveAbove', 'compareTo']) delete rule[field]
      rule.measure = '5xx'
      rule.above = 0.2
      rule.resolveBelow = 0.3
    },
    names: file => [`rule "${(file.rules[0] as Rule).name}"`, '"resolveBelow"']
  },
  {
    // A comparison without its ratio.
    apply: file => {
      const rule = file.rules[0] as Rule
      for (const field of ['above', 'below', 'ratio', 'resolveBelow', 'resolveAbove']) delete rule[field]
      rule.deployment = 'B'
      rule.compareTo = 'A'
    },
    names: file => [`rule "${(file.rules[0] as Rule).name}"`, '"ratio"']
  },
  {
    apply: file => { file.rules.push({ ...(file.rules[0] as Rule) }) },
    names: file => [`rule "${(file.rules[0] as Rule).name}"`, '"name"']
  }
]

const fileFaults: Fault[] = [
  { apply: file => { file.evaluateEvery = '50ms' }, names: () => ['the file', '"evaluateEvery"'] },
  { apply: file => { file.rules = 'none' as unknown as Rule[] }, names: () => ['the file', '"rules"'] },
  { apply: file => { file.extra = true }, names: () => ['the file', '"extra"'] },
  { apply: file => { (file.webhooks.ops as Record<string, unknown>).url = `ftp://hooks.example/${URL_TOKEN}` }, names: () => ['webhook "ops"', '"url"'] },
  { apply: file => { (file.webhooks.ops as Record<string, unknown>).url = `not a url ${URL_TOKEN}` }, names: () => ['webhook "ops"', '"url"'] },
  { apply: file => { (file.webhooks.chat as Record<string, unknown>).secret = SECRET.slice(0, 15) }, names: () => ['webhook "chat"', '"secret"'] },
  { apply: file => { (file.webhooks.chat as Record<string, unknown>).timeout = '2m' }, names: () => ['webhook "chat"', '"timeout"'] },
  { apply: file => { (file.webhooks.ops as Record<string, unknown>).token = SECRET }, names: () => ['webhook "ops"', '"token"'] }
]

t.test('generated rule files: every valid one loads, every invalid one stops the start with one line naming the problem', async t => {
  const dir = freshDir(t, 'alert-rules-')
  let files = 0
  const load = (file: unknown) => {
    const path = join(dir, `rules-${++files}.json`)
    writeFileSync(path, JSON.stringify(file))
    return { path, load: () => loadConfig({ PROFILER_DATABASE_PATH: join(dir, 'p.sqlite'), PROFILER_ALERTS: path }) }
  }
  fc.assert(fc.property(validFile, file => {
    const rules = load(file).load().profilerAlerts
    if (rules === null) throw new Error('no rules loaded')
    if (rules.rules.map(rule => rule.name).join('\n') !== file.rules.map(rule => rule.name).join('\n')) throw new Error('not every rule loaded')
    for (const [i, rule] of rules.rules.entries()) {
      const written = file.rules[i] as Rule
      if (rule.measure !== written.measure || rule.route !== written.route) throw new Error(`rule ${i} read wrong`)
      if (rule.method !== (written.method ?? '*') || rule.minRequests !== (written.minRequests ?? 20)) throw new Error(`rule ${i}: defaults wrong`)
      if (rule.resolve > rule.threshold && rule.direction === 'above') throw new Error(`rule ${i}: resolve above the threshold`)
    }
  }), { numRuns: 150 })

  const invalidFile = fc.tuple(validFile.filter(file => file.rules.length > 0), fc.constantFrom(...ruleFaults, ...fileFaults))
  fc.assert(fc.property(invalidFile, ([file, fault]) => {
    const broken = structuredClone(file) as File
    fault.apply(broken)
    const { path, load: start } = load(broken)
    let error: unknown
    try {
      start()
    } catch (err) {
      error = err
    }
    if (!(error instanceof ConfigError)) throw new Error(`not refused: ${JSON.stringify(broken)}`)
    const line = error.message
    if (line.includes('\n')) throw new Error(`more than one line: ${line}`)
    if (!line.startsWith(`Invalid environment: PROFILER_ALERTS (${path}) `)) throw new Error(`does not name the variable and file: ${line}`)
    for (const words of fault.names(broken)) if (!line.includes(words)) throw new Error(`"${line}" does not name ${words}`)
    if (line.includes(SECRET.slice(0, 15)) || line.includes(URL_TOKEN)) throw new Error(`repeats a secret: ${line}`)
  }), { numRuns: 300 })
  t.pass(`${files} files read`)
})

t.test('a file that cannot be read or parsed stops the start, naming it, without its text', async t => {
  const dir = freshDir(t, 'alert-rules-')
  const path = join(dir, 'broken.json')
  writeFileSync(path, `{ "webhooks": { "ops": { "url": "https://hooks.example/${URL_TOKEN}", "secret": "${SECRET}" ,,, } } }`)
  t.throws(() => loadConfig({ PROFILER_ALERTS: path }), new ConfigError(`Invalid environment: PROFILER_ALERTS (${path}) is not valid JSON`))
  const missing = join(dir, 'missing.json')
  t.throws(() => loadConfig({ PROFILER_ALERTS: missing }), new ConfigError(`Invalid environment: PROFILER_ALERTS (${missing}) cannot be read: ENOENT`))
})

t.test('the issue\'s example file loads with its meanings and the defaults', async t => {
  const dir = freshDir(t, 'alert-rules-')
  const path = join(dir, 'rules.json')
  writeFileSync(path, JSON.stringify({
    evaluateEvery: '30s',
    webhooks: { ops: { url: 'https://hooks.example/T000/B000', secret: 'at-least-16-characters' } },
    rules: [
      { name: 'lookups failing', route: '/ccenter/getConseillerByCode', method: 'POST', measure: '4xx', above: 0.5, window: '5m', minRequests: 10, pendingFor: '0s', resolveBelow: 0.25, repeatEvery: '4h', notify: ['ops'] },
      { name: 'slow', route: '*', measure: 'p95', above: '800ms' },
      { name: 'B slower', route: '*', measure: 'p95', deployment: 'B', compareTo: 'A', ratio: 1.5, window: '15m' }
    ]
  }))
  const rules = loadConfig({ PROFILER_ALERTS: path }).profilerAlerts
  t.equal(rules?.evaluateEveryMs, 30_000)
  t.match(rules?.rules, [
    { name: 'lookups failing', method: 'POST', measure: '4xx', threshold: 0.5, direction: 'above', resolve: 0.25, windowMs: 300_000, minRequests: 10, pendingForMs: 0, repeatEveryMs: 14_400_000, notify: ['ops'] },
    { name: 'slow', route: '*', method: '*', threshold: 800, resolve: 800, windowMs: 300_000, minRequests: 20, pendingForMs: 30_000, repeatEveryMs: 14_400_000, notify: [] },
    { name: 'B slower', deployment: 'B', compareTo: 'A', threshold: 1.5, windowMs: 900_000 }
  ])
})
