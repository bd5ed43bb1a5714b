// run-suite: shares a process
// Issue 38's fence for the SQLite blocks (migration 016): for generated requests (methods, paths
// matched or not, query strings, JSON, form, malformed and untyped bodies, headers, handler
// errors, statements, log lines), every view a user has of a profile (the page's JSON twin, the
// page, cURL, HAR) is the same whether its panels are read from their batch's block or, as the
// release before stored them, from a profile_data row of their own.
import { join } from 'node:path'
import fc from 'fast-check'
import type { FastifyInstance } from 'fastify'
import t from 'tap'
import { buildTestApp } from '../helpers/app.js'
import { tokenOf } from '../helpers/debug-token.js'
import { freshDir } from '../helpers/dirs.js'
import { hostileText } from '../helpers/hostile.js'
import { storeAsBeforeBlocks } from '../helpers/sqlite-panels.js'

const METHODS = ['GET', 'POST', 'PUT', 'DELETE']
const PATHS = ['/ccenter/getConseillerByCode', '/monitor/MonitorPooling', '/test/logged', '/test/boom', '/robots.txt', '/wp-login.php', '/%E0%A4%A']

const body = fc.oneof(
  fc.constant(null),
  fc.record({ code: fc.constantFrom('ADV1001', 'ADV1002', 'NOPE'), note: hostileText(20, 3) }).map(value => ({ type: 'application/json', payload: JSON.stringify(value) })),
  fc.jsonValue({ maxDepth: 3 }).map(value => ({ type: 'application/json', payload: JSON.stringify(value) })),
  fc.dictionary(fc.string({ maxLength: 12 }), fc.string({ maxLength: 20 }), { maxKeys: 4 })
    .map(fields => ({ type: 'application/x-www-form-urlencoded', payload: new URLSearchParams(fields).toString() })),
  hostileText(20, 3).map(text => ({ type: 'application/json', payload: `{"a":${text}` })),
  hostileText(20, 3).map(text => ({ type: 'text/plain', payload: text }))
)

const request = fc.record({
  method: fc.constantFrom(...METHODS),
  path: fc.constantFrom(...PATHS),
  query: fc.dictionary(hostileText(10, 2), hostileText(10, 2), { maxKeys: 3 }).map(values => new URLSearchParams(values).toString()),
  body,
  headers: fc.dictionary(fc.stringMatching(/^x-[a-z0-9-]{1,16}$/), fc.stringMatching(/^[\x21-\x7e][\x20-\x7e]{0,30}$/), { maxKeys: 3 }),
  authorization: fc.option(fc.constantFrom('Bearer abc.defghij', 'Basic dXNlcjpwYXNz'), { nil: undefined })
})

type Sent = typeof request extends fc.Arbitrary<infer T> ? T : never

/** The app with two test routes: one that logs (a line with fields and a format argument), one that fails with a cause. */
async function appOn (t: Parameters<typeof buildTestApp>[0], path: string): Promise<FastifyInstance> {
  return await buildTestApp(t, { PROFILER_DATABASE_PATH: path }, app => {
    app.all('/test/logged', async req => {
      req.log.warn({ user: 'ann', password: 'pw-logged' }, 'seen %s', req.url)
      return { ok: true }
    })
    app.all('/test/boom', async () => { throw new TypeError('kaput', { cause: new RangeError('deeper') }) })
  })
}

/** Every view of a profile a user has: the JSON twin (neighbours left out: they move as profiles are added), the page, cURL, HAR. */
async function views (app: FastifyInstance, token: string): Promise<Record<string, unknown>> {
  const read = async (url: string, headers: Record<string, string> = {}): Promise<string> => {
    const res = await app.inject({ url, headers })
    if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode} ${res.body.slice(0, 300)}`)
    return res.body
  }
  const { previous: _previous, next: _next, ...profile } = JSON.parse(await read(`/_profiler/${token}`, { accept: 'application/json' }))
  const page = await read(`/_profiler/${token}?panel=request`)
  return { profile, page: page.replace(/<nav[\s\S]*?<\/nav>/g, ''), curl: await read(`/_profiler/${token}/curl`), har: await read(`/_profiler/${token}/har`) }
}

async function send (app: FastifyInstance, sent: Sent): Promise<string> {
  const { method, path, query, body, headers, authorization } = sent
  const res = await app.inject({
    method: method as 'GET',
    url: query === '' ? path : `${path}?${query}`,
    headers: { ...headers, ...(authorization === undefined ? {} : { authorization }), ...(body?.type === undefined ? {} : { 'content-type': body.type }) },
    ...(body === null ? {} : { payload: body.payload })
  })
  return tokenOf(res)
}

// Two apps a run (their opening and closing was most of the file's CPU): 14 runs of 1 to 16
// requests (fast-check's medium size: lengths up to 16, not its default's 10) generate about as
// many requests as 25 runs of 1 to 8 did (~100), in blocks of up to 16 profiles.
t.test('a profile read from its block shows what it shows read from a profile_data row, for generated requests', async t => {
  let runs = 0
  let sent = 0
  await fc.assert(fc.asyncProperty(fc.array(request, { minLength: 1, maxLength: 16, size: 'medium' }), async requests => {
    const path = join(freshDir(t, 'blocks-property-'), 'profiler.sqlite')
    const first = await appOn(t, path)
    const tokens: string[] = []
    for (const sent of requests) tokens.push(await send(first, sent))
    await first.profileStore.flush()
    const fromBlocks = new Map<string, Record<string, unknown>>()
    for (const token of tokens) fromBlocks.set(token, await views(first, token))
    await first.close()
    if (storeAsBeforeBlocks(path) !== tokens.length) throw new Error('not every profile was moved')
    const second = await appOn(t, path)
    try {
      for (const token of tokens) {
        const fromRows = await views(second, token)
        for (const view of ['profile', 'page', 'curl', 'har']) {
          const before = JSON.stringify(fromBlocks.get(token)?.[view])
          const after = JSON.stringify(fromRows[view])
          if (before !== after) throw new Error(`${token} ${view}: from its block ${before.slice(0, 600)}\nfrom a profile_data row ${after.slice(0, 600)}`)
        }
      }
    } finally {
      await second.close()
    }
    runs++
    sent += requests.length
  }), { numRuns: 14, seed: 3801 })
  t.pass(`${runs} generated sets of requests (${sent} requests), every view the same`)
})
