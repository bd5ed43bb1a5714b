// Alerts from the route statistics (issue 40), on both engines, with real HTTP receivers on loopback.
// One app per engine (deployment A) and a second on the same store (B) for the comparison rule:
// - a p95 rule fires once after its pending period, repeats on its interval, resolves once below
//   its resolve threshold; a rule whose window has too few requests never fires;
// - a comparison rule fires when B is slower than A;
// - every request's signature verifies;
// - a receiver that answers 500, then hangs, then answers gets every notification in order, while
//   the other webhook, the evaluations and the service go on.
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { FastifyInstance } from 'fastify'
import t, { type Test } from 'tap'
import { buildTestApp } from '../helpers/app.js'
import { freshDir } from '../helpers/dirs.js'
import { storeEngines } from '../helpers/store-engines.js'
import { signatureVerifies, webhookReceiver } from '../helpers/webhook-receiver.js'
import { waitFor } from '../helpers/wait-for.js'
import { profiler } from '../helpers/profiler-cli.js'
import { json as mcpJson, mcpClientInProcess } from '../helpers/mcp-client.js'

const engines = storeEngines(t)
const SECRET = 'receiver-secret-0123456789'
const JSON_ACCEPT = { accept: 'application/json' }

/** Test-only routes whose duration and status the test chooses. */
function testRoutes (app: FastifyInstance): void {
  const wait = async (ms: string) => { await new Promise(resolve => setTimeout(resolve, Number(ms))) }
  app.get('/test/wait/:ms', async request => { await wait((request.params as { ms: string }).ms); return { ok: true } })
  app.get('/test/compare/:ms', async request => { await wait((request.params as { ms: string }).ms); return { ok: true } })
  app.get('/test/status/:code', async (request, reply) => reply.code(Number((request.params as { code: string }).code)).send({ ok: false }))
}

type Alerts = { rules: Array<Record<string, any>>, changes: Array<Record<string, any>>, deliveries: Array<Record<string, any>>, instance: Record<string, any> | null }
async function alertsOf (app: FastifyInstance): Promise<Alerts> {
  const res = await app.inject({ url: '/_profiler/alerts', headers: JSON_ACCEPT })
  if (res.statusCode !== 200) throw new Error(`alerts page: ${res.statusCode} ${res.body}`)
  return res.json()
}

/** An alerts answer without the evaluation times, nor the profiles' links (their window is the last evaluation's): they move on with every evaluation. */
function settled (answer: Record<string, any>): Record<string, any> {
  return {
    ...answer,
    rules: answer.rules.map(({ profiles: _profiles, ...rule }: Record<string, any>) => ({
      ...rule,
      routes: rule.routes.map(({ evaluated: _evaluated, profiles: _routeProfiles, ...route }: Record<string, any>) => route)
    }))
  }
}

/**
 * A notification's (or the alerts page's) links, followed on the app: the stats page over the rule's
 * window narrowed to the route, and the route's profiles of that window, slowest first.
 */
async function followedLinks (t: Test, app: FastifyInstance, links: { stats: string, profiles: string }, evaluatedMs: number): Promise<void> {
  const local = (link: string): string => link.replace(/^https:\/\/service\.example/, '')
  const stats = await app.inject({ url: local(links.stats), headers: JSON_ACCEPT })
  t.equal(stats.statusCode, 200, `${links.stats}: ${stats.body.slice(0, 200)}`)
  t.equal(stats.json().window, '1m', 'the stats page over the rule\'s window')
  t.same(stats.json().routes.map((line: any) => line.route), ['/test/wait/:ms'], 'narrowed to the route')
  const query = new URL(links.profiles, 'http://x').searchParams
  const [start, end] = [Number(query.get('start')) * 1000, Number(query.get('end')) * 1000]
  t.equal(start % 60_000, 0, 'the window from its first minute, as the statistics read it')
  t.ok(start <= evaluatedMs - 60_000 && start > evaluatedMs - 120_000 && end <= evaluatedMs && end > evaluatedMs - 1000, `the rule's window: ${start} to ${end} for ${evaluatedMs}`)
  const listed = await app.inject({ url: local(links.profiles), headers: JSON_ACCEPT })
  t.equal(listed.statusCode, 200)
  const results = listed.json().results as Array<{ url: string, method: string, durationMs: number, time: string }>
  t.ok(results.length > 0, 'the route\'s profiles of the window')
  t.ok(results.every(p => p.method === 'GET' && p.url.includes('/test/wait/')), 'of the route and method only')
  t.ok(results.every((p, i) => i === 0 || (results[i - 1]?.durationMs ?? 0) >= p.durationMs), 'slowest first')
  t.ok(results.every(p => Date.parse(p.time) >= start && Date.parse(p.time) < end + 1000), 'in the window')
}

/** Waits until the app has evaluated twice more (its status' lastEvaluated moved on twice). */
async function twoMoreEvaluations (app: FastifyInstance): Promise<void> {
  const seen = new Set([(await alertsOf(app)).instance?.lastEvaluated])
  await waitFor(async () => { seen.add((await alertsOf(app)).instance?.lastEvaluated); return seen.size >= 3 }, { what: 'two more evaluations' })
}

t.jobs = 2
for (const engine of engines) {
  t.test(engine.name, { skip: engine.skip, buffered: true }, async t => {
    const store = await engine.fresh(t)
    const hook = await webhookReceiver(t)
    const flaky = await webhookReceiver(t, [500, 'hang'])
    const dir = freshDir(t, 'alerts-')
    const rulesPath = join(dir, 'alerts.json')
    writeFileSync(rulesPath, JSON.stringify({
      evaluateEvery: '200ms',
      profilerUrl: 'https://service.example',
      webhooks: {
        hook: { url: hook.url, secret: SECRET },
        flaky: { url: flaky.url, secret: SECRET, timeout: '5s' }
      },
      rules: [
        { name: 'wait p95', route: '/test/wait/:ms', method: 'GET', measure: 'p95', above: '1000ms', resolveBelow: '600ms', window: '1m', minRequests: 5, pendingFor: '400ms', repeatEvery: '1500ms', notify: ['hook'] },
        { name: 'too few', route: '/test/wait/:ms', method: 'GET', measure: 'p95', above: '1ms', window: '1m', minRequests: 100_000, pendingFor: '0s', notify: ['hook'] },
        { name: 'B slower', route: '/test/compare/:ms', measure: 'p95', deployment: 'B', compareTo: 'A', ratio: 2, window: '1m', minRequests: 5, pendingFor: '0s', notify: ['hook'] },
        { name: 'errors', route: '*', measure: '5xx', above: 0.5, window: '1m', minRequests: 3, pendingFor: '0s', notify: ['flaky'] }
      ]
    }))
    const a = await buildTestApp(t, { ...store, PROFILER_DEPLOYMENT: 'A', PROFILER_ALERTS: rulesPath }, testRoutes)
    const b = await buildTestApp(t, { ...store, PROFILER_DEPLOYMENT: 'B' }, testRoutes)

    // The flaky webhook's rule: three 500s fire it (its receiver answers 500, then hangs).
    for (let i = 0; i < 3; i++) await a.inject({ url: '/test/status/500' })
    // Slow traffic over the p95 threshold, enough requests; A fast and B slow on the compared route.
    await Promise.all(Array.from({ length: 6 }, async () => await a.inject({ url: '/test/wait/1500' })))
    // Enough of A's that one stalled by the machine does not make its p95.
    for (let i = 0; i < 40; i++) await a.inject({ url: '/test/compare/1' })
    await Promise.all(Array.from({ length: 6 }, async () => await b.inject({ url: '/test/compare/1500' })))
    await a.profileStore.flush()
    await b.profileStore.flush()

    // The flaky receiver: its first attempt got a 500; while its second hangs, everything else goes on.
    await waitFor(() => flaky.holding(), { what: 'the flaky receiver to hold a request' })
    const business = await a.inject({ method: 'POST', url: '/monitor/MonitorPooling' })
    t.equal(business.statusCode, 200)
    t.ok(flaky.holding(), 'the service answered while the webhook hung')
    const evaluated = new Set<unknown>()
    await waitFor(async () => {
      const last = (await alertsOf(a)).instance?.lastEvaluated
      if (!flaky.holding()) return true
      evaluated.add(last)
      return evaluated.size >= 3
    }, { what: 'evaluations while the webhook hangs' })
    t.ok(evaluated.size >= 3, `the evaluations went on while the webhook hung (${evaluated.size - 1} seen)`)

    const firedWait = () => hook.delivered().filter(n => n.rule === 'wait p95')
    await waitFor(() => firedWait().length >= 1, { what: 'the p95 rule to fire', timeoutMs: 15_000 })
    const fired = firedWait()[0] as Record<string, any>
    t.match(fired, { rule: 'wait p95', state: 'firing', repeat: false, route: '/test/wait/:ms', method: 'GET', deployment: null, measure: 'p95', threshold: 1000, window: '1m' })
    t.ok(fired.value > 1000, `the value read (${fired.value} ms) is over the threshold`)
    // "links to the route's statistics and to its slowest profiles in that window": the rule's own window, the listing slowest first.
    t.match(fired.links.stats, /^https:\/\/service\.example\/_profiler\/stats\?window=1m&route=%2Ftest%2Fwait%2F%3Ams$/)
    t.match(fired.links.profiles, /^https:\/\/service\.example\/_profiler\/empty\/search\/results\?method=GET&route=%2Ftest%2Fwait%2F%3Ams&start=\d+&end=\d+&sort=duration&limit=10&type=request$/)
    await followedLinks(t, a, fired.links, Date.parse(fired.since))
    t.match(fired.text, /^Firing: wait p95: p95 of GET \/test\/wait\/:ms is .* \(&gt; 1\.00 s\) over 1m\./)
    // The pending period: a pending state before firing, at least 400 ms before it.
    const changes = (await alertsOf(a)).changes.filter(c => c.rule === 'wait p95').reverse()
    t.same(changes.slice(0, 2).map(c => c.state), ['pending', 'firing'])
    t.ok(Date.parse(changes[1]?.at) - Date.parse(changes[0]?.at) >= 400, 'fired after the pending period')

    // While it fires, the stats page marks the route (its JSON twin names the rule), and ?route= narrows it.
    const stats = await a.inject({ url: '/_profiler/stats?route=%2Ftest%2Fwait%2F%3Ams', headers: JSON_ACCEPT })
    t.same(stats.json().routes.map((line: any) => [line.route, line.firingAlerts]), [['/test/wait/:ms', ['wait p95']]])
    t.match((await a.inject({ url: '/_profiler/stats' })).body, /class="label alert-firing">Alert firing: wait p95</)

    // The comparison: B's p95 over 2 times A's.
    await waitFor(() => hook.delivered().some(n => n.rule === 'B slower'), { what: 'the comparison rule to fire', timeoutMs: 15_000 }).catch(async err => {
      t.comment(JSON.stringify((await alertsOf(a)).rules[2]))
      t.comment(JSON.stringify((await a.inject({ url: '/_profiler/stats?deployment=B', headers: JSON_ACCEPT })).json().routes.map((r: any) => [r.route, r.count, r.p95Ms])))
      throw err
    })
    const compared = hook.delivered().find(n => n.rule === 'B slower') as Record<string, any>
    t.match(compared, { state: 'firing', deployment: 'B', compareTo: 'A', threshold: 2, route: '/test/compare/:ms', method: 'GET' })
    t.ok(compared.value > 2, `B over A: ${compared.value}`)

    // Resolve the errors rule meanwhile: enough 200s on the same route bring the share below 0.5.
    for (let i = 0; i < 10; i++) await a.inject({ url: '/test/status/200' })

    // A repeat while it stays firing, then the resolution once fast traffic brings p95 below 600 ms.
    await waitFor(() => firedWait().some(n => n.repeat === true), { what: 'a repeat', timeoutMs: 15_000 })
    await Promise.all(Array.from({ length: 2 }, async () => { for (let i = 0; i < 120; i++) await a.inject({ url: '/test/wait/0' }) }))
    await a.profileStore.flush()
    await waitFor(() => firedWait().some(n => n.state === 'resolved'), { what: 'the p95 rule to resolve', timeoutMs: 15_000 }).catch(async err => {
      t.comment(JSON.stringify((await alertsOf(a)).rules[0]))
      t.comment(JSON.stringify((await a.inject({ url: '/_profiler/stats', headers: JSON_ACCEPT })).json().routes.map((r: any) => [r.route, r.count, r.p95Ms])))
      throw err
    })
    await waitFor(() => flaky.delivered().length >= 2, { what: 'the flaky receiver to get both notifications', timeoutMs: 15_000 })
    await twoMoreEvaluations(a)

    const wait = firedWait()
    t.equal(wait.filter(n => n.state === 'firing' && n.repeat === false).length, 1, 'fired once')
    t.equal(wait.filter(n => n.state === 'resolved').length, 1, 'resolved once')
    t.equal(wait.at(-1)?.state, 'resolved', 'nothing after the resolution')
    const resolved = wait.at(-1) as Record<string, any>
    t.match(resolved, { threshold: 600, text: /^Resolved: wait p95:/ })
    t.ok(resolved.value < 600)
    t.equal(hook.delivered().filter(n => n.rule === 'too few').length, 0, 'a window with too few requests never fires')
    // Every notification, in order: firing then resolved, though the first took three attempts.
    t.same(flaky.delivered().map(n => `${n.rule} ${n.state}`), ['errors firing', 'errors resolved'])
    t.same(flaky.received.map(r => r.answer), [500, 'hang', 200, 200])
    for (const received of [...hook.received, ...flaky.received]) t.ok(signatureVerifies(received, SECRET), `signature of ${received.json.rule} ${received.json.state}`)

    // The page's JSON twin: each rule's state, the history of changes and deliveries, never a URL or secret.
    const page = await alertsOf(a)
    const waitRule = page.rules.find(r => r.name === 'wait p95') as Record<string, any>
    t.match(waitRule, { state: 'resolved', notify: ['hook'], routes: [{ route: '/test/wait/:ms', method: 'GET', state: 'resolved' }] })
    // "a rule's line links to the stats page narrowed to its route and window", and to the slowest profiles of that window.
    t.equal(waitRule.stats, '/_profiler/stats?window=1m&route=%2Ftest%2Fwait%2F%3Ams')
    t.match(waitRule.profiles, /^\/_profiler\/empty\/search\/results\?method=GET&route=%2Ftest%2Fwait%2F%3Ams&start=\d+&end=\d+&sort=duration&limit=10&type=request$/)
    t.match(waitRule.routes[0], { stats: waitRule.stats, profiles: waitRule.profiles })
    t.equal(page.rules.find(r => r.name === 'errors')?.stats, '/_profiler/stats?window=1m', 'a rule on every route: its window, no route')
    const pageHtml = (await a.inject({ url: '/_profiler/alerts' })).body
    t.match(pageHtml, '<td><a href="/_profiler/stats?window&#x3D;1m&amp;route&#x3D;%2Ftest%2Fwait%2F%3Ams">wait p95</a></td>')
    t.match(pageHtml, /<td><a href="\/_profiler\/empty\/search\/results\?method&#x3D;GET&amp;route&#x3D;%2Ftest%2Fwait%2F%3Ams&amp;start&#x3D;\d+&amp;end&#x3D;\d+&amp;sort&#x3D;duration&amp;limit&#x3D;10&amp;type&#x3D;request">slowest of the window<\/a><\/td>/)
    t.match(page.rules.find(r => r.name === 'too few'), { state: 'normal', routes: [{ value: null, valueText: 'too few requests' }] })
    const flakyFiring = page.deliveries.find(d => d.webhook === 'flaky' && d.state === 'firing')
    t.match(flakyFiring, { status: 'delivered', attempts: 3 })
    t.equal(page.instance?.evaluating, true)
    const text = JSON.stringify(page) + (await a.inject({ url: '/_profiler/alerts' })).body
    t.notOk(text.includes(SECRET) || text.includes('T0SECRET') || text.includes('127.0.0.1:'), 'no webhook URL or secret shown')

    // The command line and the MCP tool read the same from the store (the rules from the same file).
    const env = { ...store, PROFILER_ALERTS: rulesPath }
    const cli = await profiler(['alerts', '--json'], env)
    t.equal(cli.code, 0, cli.stderr)
    // Evaluations go on meanwhile: each route's evaluation time is left out of the comparison.
    const { instance: _instance, ...stored } = await alertsOf(a)
    t.same(settled(JSON.parse(cli.stdout)), settled(stored), 'profiler alerts --json answers what the page answers')
    const table = await profiler(['alerts'], env)
    t.match(table.stdout, /^Alert rules, evaluated every 200ms\n/)
    t.match(table.stdout, /wait p95 +resolved/)
    t.notOk(table.stdout.includes('T0SECRET') || table.stdout.includes(SECRET))
    const client = await mcpClientInProcess(t, env)
    t.same(settled(await mcpJson(client, 'list_alerts', {})), settled(JSON.parse(cli.stdout)), 'list_alerts answers the same')
  })
}
