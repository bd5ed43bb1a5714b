// run-suite: shares a process
// Two real instances (dist/server.js, deployments A and B) on one PostgreSQL store, both reading the
// same alert rules (issue 40): one of them holds the store's lease and evaluates, so each
// notification is sent once; killed with SIGKILL, the other takes over within about two
// evaluations, without sending again what was sent, and sends what fires next.
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { freshDir } from '../helpers/dirs.js'
import { needsPostgres, startPostgres } from '../helpers/postgres.js'
import { startServer, type RunningServer } from '../helpers/server.js'
import { signatureVerifies, webhookReceiver } from '../helpers/webhook-receiver.js'
import { waitFor } from '../helpers/wait-for.js'

const SECRET = 'lease-test-secret-0123456789'
const EVALUATE_EVERY_MS = 1000

/** The instance's part, as its alerts page says it: whether it holds the lease, when it last evaluated. */
async function instanceOf (server: RunningServer): Promise<{ evaluating: boolean, lastEvaluated: string | null }> {
  const res = await fetch(`${server.address}/_profiler/alerts`, { headers: { accept: 'application/json' } })
  if (res.status !== 200) throw new Error(`alerts page answered ${res.status}`)
  return ((await res.json()) as { instance: { evaluating: boolean, lastEvaluated: string | null } }).instance
}

async function evaluating (server: RunningServer): Promise<boolean> {
  return (await instanceOf(server)).evaluating
}

/**
 * Waits until `servers` have evaluated `count` more times between them (their lastEvaluated moved on
 * that often), instead of a time that stands for it. Between them: under load the lease may pass
 * from one to the other (seen beside CI's CPU hog), and which one evaluates is not what is asserted.
 */
async function moreEvaluations (servers: RunningServer[], count: number): Promise<void> {
  const seen = new Set<string>()
  const note = async (): Promise<void> => {
    for (const [index, server] of servers.entries()) seen.add(`${index} ${String((await instanceOf(server)).lastEvaluated)}`)
  }
  await note()
  const before = seen.size
  await waitFor(async () => { await note(); return seen.size - before >= count }, { timeoutMs: 30_000, intervalMs: 50, what: `${count} more evaluations` })
}

if (needsPostgres(t)) {
  t.test('A and B on one store: one evaluates, each notification is sent once, the other takes over after SIGKILL', async t => {
    // How long each part takes (issue 40's "no test over ~20 s"): the comments say where the time goes.
    let last = Date.now()
    const phase = (what: string): void => { t.comment(`${what}: ${Date.now() - last} ms`); last = Date.now() }
    const cluster = await startPostgres(t)
    const url = await cluster.createDatabase('alerts_lease')
    const hook = await webhookReceiver(t)
    const dir = freshDir(t, 'lease-')
    const rules = join(dir, 'alerts.json')
    writeFileSync(rules, JSON.stringify({
      evaluateEvery: `${EVALUATE_EVERY_MS}ms`,
      webhooks: { hook: { url: hook.url, secret: SECRET } },
      rules: [
        { name: 'lookups failing', route: '/ccenter/getConseillerByCode', method: 'POST', measure: '4xx', above: 0.5, window: '5m', minRequests: 3, pendingFor: '0s', repeatEvery: '1h', notify: ['hook'] },
        { name: 'polled', route: '/monitor/MonitorPooling', method: 'POST', measure: 'count', above: 3, window: '5m', minRequests: 1, pendingFor: '0s', repeatEvery: '1h', notify: ['hook'] }
      ]
    }))
    const start = async (deployment: string) => await startServer(t, { PROFILER_DATABASE_URL: url, PROFILER_DEPLOYMENT: deployment, PROFILER_ALERTS: rules, DATABASE_PATH: join(freshDir(t, `db-${deployment}-`), 'app.sqlite') })
    phase('the PostgreSQL cluster, the receiver')
    const [a, b] = await Promise.all([start('A'), start('B')])
    phase('two instances started')
    const STARTED = { timeoutMs: 30_000, intervalMs: 100, retryOnError: true }
    await waitFor(async () => (await evaluating(a)) !== (await evaluating(b)), { ...STARTED, what: 'exactly one instance to evaluate' })
    phase('exactly one evaluates')

    // Lookups of unknown codes (404s) through both instances: one firing, sent once.
    for (const server of [a, b, a, b]) {
      await fetch(`${server.address}/ccenter/getConseillerByCode`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"code":"NOPE"}' })
    }
    await waitFor(() => hook.delivered().length >= 1, { ...STARTED, what: 'the firing notification' })
    phase('the firing notification sent')
    // Three more evaluations: nothing more is sent (the state is in the store, and one evaluates).
    await moreEvaluations([a, b], 3)
    phase('three more evaluations')
    t.same(hook.delivered().map(n => `${n.rule} ${n.state}`), ['lookups failing firing'], 'sent once, by one instance')
    // The one that holds the lease now is the one killed.
    await waitFor(async () => (await evaluating(a)) !== (await evaluating(b)), { ...STARTED, what: 'exactly one instance to evaluate' })
    const holder = await evaluating(a) ? a : b
    const other = holder === a ? b : a

    await holder.stop('SIGKILL')
    const killedAt = Date.now()
    await waitFor(async () => await evaluating(other), { ...STARTED, intervalMs: 50, what: 'the other instance to take over' })
    const takeoverMs = Date.now() - killedAt
    phase(`took over ${takeoverMs} ms after the SIGKILL`)
    // The lease is one evaluation long, checked every half evaluation: two evaluations and some slack for a loaded machine.
    t.ok(takeoverMs <= 2 * EVALUATE_EVERY_MS + 1000, `took over within about two evaluations (${takeoverMs} ms)`)

    // The survivor sends what fires next, and never again what was sent.
    for (let i = 0; i < 4; i++) await fetch(`${other.address}/monitor/MonitorPooling`, { method: 'POST' })
    await waitFor(() => hook.delivered().some(n => n.rule === 'polled'), { ...STARTED, what: 'the survivor\'s notification' })
    await moreEvaluations([other], 2)
    phase('the survivor\'s notification, two more evaluations')
    t.same(hook.delivered().map(n => `${n.rule} ${n.state}`), ['lookups failing firing', 'polled firing'], 'each notification once')
    for (const received of hook.received) t.ok(signatureVerifies(received, SECRET))
  })
}
