// run-suite: shares a process
import t from 'tap'
import { call, json, mcpClientInProcess } from '../helpers/mcp-client.js'
import { profilerPage, sameStats, statsJson } from '../helpers/profiler.js'
import { recordedApp, SECRET_BEARER } from '../helpers/profile-store.js'

t.test('route_stats answers what the statistics page answers, for each window', async t => {
  const { app, env } = await recordedApp(t)
  const client = await mcpClientInProcess(t, env)
  const deployment = app.config.profilerDeployment
  for (const [args, query] of [[{}, ''], [{ window: '24h' }, '?window=24h'], [{ window: '7d' }, '?window=7d'], [{ window: '30d' }, '?window=30d'], [{ window: '15m' }, '?window=15m'], [{ window: '2h' }, '?window=2h'],
    [{ deployment }, `?deployment=${deployment}`], [{ deployment: 'elsewhere', window: '24h' }, '?deployment=elsewhere&window=24h'],
    [{ deployment, compare: 'elsewhere' }, `?deployment=${deployment}&compare=elsewhere`], [{ deployment: 'elsewhere', compare: deployment, window: '7d' }, `?deployment=elsewhere&compare=${deployment}&window=7d`]] as const) {
    const before = await statsJson(app, query)
    const answer = await json(client, 'route_stats', args)
    sameStats(t, answer, before, await statsJson(app, query))
  }
  t.equal((await statsJson(app)).routes.length, 4, 'the recorded requests are in the lines compared')
  const bad = await call(client, 'route_stats', { window: '31d' })
  t.equal(bad.isError, true, 'a window longer than 30d is refused')
  t.match(bad.text, 'Invalid "window" parameter "31d": expected 5m, 15m, 30m, 1h, 24h, 7d, 30d or another duration from 1s to 30d (90s, 10m, 2h)')
})

t.test('export_profile answers what the /curl and /har pages answer', async t => {
  const { app, env, tokens } = await recordedApp(t)
  const client = await mcpClientInProcess(t, env)
  for (const format of ['curl', 'har'] as const) {
    const answer = await call(client, 'export_profile', { token: tokens.found, format })
    t.same(answer, { isError: false, text: (await profilerPage(app, `/${tokens.found}/${format}`)).body }, format)
    t.notOk(answer.text.includes(SECRET_BEARER.slice(7)), 'the bearer token stays redacted')
  }
  const latest = await call(client, 'export_profile', { token: 'latest', format: 'curl' })
  t.equal(latest.text, (await profilerPage(app, `/${tokens.poll}/curl`)).body)
  t.same(await call(client, 'export_profile', { token: 'ffffff', format: 'har' }), { isError: true, text: 'Token "ffffff" not found.' })
  const bad = await call(client, 'export_profile', { token: tokens.found, format: 'pdf' })
  t.equal(bad.isError, true)
  t.match(bad.text, /format/)
})
