// run-suite: shares a process

// What is kept (issue #24), as data: the listing's, each profile's and the statistics' JSON twins
// carry `kept` (PROFILER_SAMPLE, PROFILER_KEEP_SLOWER_THAN and the sentence the pages show), on
// both engines, at a sample of 1 and of 0.1.
import type { FastifyInstance } from 'fastify'
import t from 'tap'
import { buildTestApp } from '../helpers/app.js'
import { basicAuth, listProfiles, profileJson, profilerPage, statsJson } from '../helpers/profiler.js'
import { storeEngines } from '../helpers/store-engines.js'

const engines = storeEngines(t)
const SECRET = 'kept-json-secret-0123456789'

/** The listing's whole JSON answer (its `results` and `store` besides `kept`). */
async function listingJson (app: FastifyInstance): Promise<Record<string, any>> {
  const res = await profilerPage(app, '/empty/search/results?limit=10')
  if (res.statusCode !== 200) throw new Error(`listing answered ${res.statusCode}: ${res.body}`)
  return JSON.parse(res.body)
}

/** A profiler page's HTML. */
async function htmlPage (app: FastifyInstance, path: string): Promise<string> {
  const res = await app.inject({ url: `/_profiler${path}`, headers: { accept: 'text/html', authorization: basicAuth(SECRET) } })
  if (res.statusCode !== 200) throw new Error(`${path} answered ${res.statusCode}: ${res.body.slice(0, 500)}`)
  return res.body
}

const SETTINGS: Array<{ env: Record<string, string>, kept: { sample: number, keepSlowerThanMs: number, sentence: string } }> = [
  { env: {}, kept: { sample: 1, keepSlowerThanMs: 1000, sentence: 'every request' } },
  {
    env: { PROFILER_SAMPLE: '0.1', PROFILER_KEEP_SLOWER_THAN: '250ms' },
    kept: { sample: 0.1, keepSlowerThanMs: 250, sentence: '10% of requests, and every error and slow request (over 250 ms)' }
  }
]

t.jobs = 2
for (const engine of engines) {
  t.test(engine.name, { skip: engine.skip, buffered: true }, async t => {
    for (const { env, kept } of SETTINGS) {
      t.test(`PROFILER_SAMPLE=${kept.sample}: the listing, a profile and the statistics say what is kept`, async t => {
        const app = await buildTestApp(t, { ...await engine.fresh(t), ...env, PROFILER_SECRET: SECRET })
        // Kept whatever the draw (the keep header): a profile to read at either sample.
        const res = await app.inject({ method: 'POST', url: '/monitor/MonitorPooling', headers: { 'content-type': 'application/json', 'x-profiler-keep': SECRET }, payload: '{}' })
        const token = String(res.headers['x-debug-token'])
        t.match(res.headers['server-timing'], /^db;dur=[\d.]+;desc="\d+ quer(y|ies)", app;dur=[\d.]+$/, 'a kept response carries Server-Timing')
        t.equal((await listProfiles(app)).length, 1, 'one profile stored')

        const listing = await listingJson(app)
        t.same(listing.kept, kept, 'the listing')
        t.equal(listing.store.statisticsDropped, 0, 'the store\'s health counts the requests not counted: none')
        t.same((await profileJson(app, token)).kept, kept, 'a profile')
        t.same((await profileJson(app, token, '?panel=router')).kept, kept, 'a profile with one panel')
        const stats = await statsJson(app)
        t.same(stats.kept, kept, 'the statistics')
        t.equal(stats.statisticsDropped, 0)
        t.match(stats.routes.find(line => line.route === '/monitor/MonitorPooling'), { count: 1, kept: 1 })

        // The pages say the same sentence.
        t.match(await htmlPage(app, '/empty/search/results?limit=10'), `Profiles kept by this instance: ${kept.sentence}`)
        t.match(await htmlPage(app, `/${token}`), `Profiles kept by this instance: ${kept.sentence}.`)
        t.match(await htmlPage(app, '/stats'), `Kept, those kept as profiles (${kept.sentence})`)
      })
    }
  })
}
