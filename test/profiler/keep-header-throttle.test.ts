// run-suite: shares a process
// The keep header is no oracle for PROFILER_SECRET (issue #37): at PROFILER_SAMPLE=0, a wrong
// X-Profiler-Keep counts as a failed login of its client address in the limiter the /_profiler
// pages' login counts in, and while the address is locked out its keep header is ignored, right or
// wrong (no X-Debug-Token). An IPv6 address is counted by its /64. Neither the status nor the body
// of a business answer ever changes.
import fc from 'fast-check'
import type { FastifyInstance } from 'fastify'
import t, { type Test } from 'tap'
import { buildApp } from '../../app.js'
import { testConfig } from '../helpers/app.js'
import { basicAuth, listProfiles } from '../helpers/profiler.js'

const SECRET = 'correct-horse-battery-staple'
const PAGE = '/_profiler/empty/search/results'
const LOOKUP = '/ccenter/getConseillerByCode'
const MAX_FAILURES = 10

async function sampledOut (t: Test, env: Record<string, string> = {}): Promise<FastifyInstance> {
  // A window no test outlasts: a lockout lasts to the end of the test.
  const app = await buildApp(testConfig(t, { PROFILER_SAMPLE: '0', PROFILER_SECRET: SECRET, ...env }), { profiler: { loginRateLimit: { maxFailures: MAX_FAILURES, windowMs: 600_000 } } })
  t.teardown(() => app.close())
  return app
}

/** The lookup of an advisor from `remoteAddress`, with the keep header when `keep` is given. */
async function lookup (app: FastifyInstance, remoteAddress: string, keep?: string) {
  return await app.inject({
    method: 'POST',
    url: LOOKUP,
    remoteAddress,
    headers: { 'content-type': 'application/json', ...(keep === undefined ? {} : { 'x-profiler-keep': keep }) },
    payload: JSON.stringify({ code: 'ADV1001' })
  })
}

async function pageLogin (app: FastifyInstance, remoteAddress: string, password: string) {
  return await app.inject({ url: PAGE, remoteAddress, headers: { accept: 'application/json', authorization: basicAuth(password) } })
}

t.test('many wrong keep headers from one address, then the right one: not kept while locked out; the answers never change', async t => {
  const app = await sampledOut(t)
  const plain = await lookup(app, '10.0.0.1')
  t.equal(plain.statusCode, 200)
  t.equal(plain.headers['x-debug-token'], undefined, 'PROFILER_SAMPLE=0 keeps nothing at random')

  const before = await lookup(app, '10.0.0.1', SECRET)
  t.type(before.headers['x-debug-token'], 'string', 'the right header, before any wrong guess: kept')

  const guesses = 200
  let tokens = 0
  for (let i = 0; i < guesses; i++) {
    const res = await lookup(app, '10.0.0.1', `guess-${i}`)
    if (res.headers['x-debug-token'] !== undefined) tokens++
    if (res.statusCode !== plain.statusCode || res.body !== plain.body) t.fail(`guess ${i}: the answer changed (${res.statusCode})`)
  }
  t.equal(tokens, 0, `no wrong guess kept (${guesses})`)
  const right = await lookup(app, '10.0.0.1', SECRET)
  t.equal(right.statusCode, 200, 'the right header while locked out: the business answer as ever')
  t.equal(right.body, plain.body, 'the same body')
  t.equal(right.headers['x-debug-token'], undefined, 'and not kept: the header is ignored')
  t.equal(right.headers['retry-after'], undefined, 'nothing of the lockout in the answer')
  const poll = await app.inject({ method: 'POST', url: '/monitor/MonitorPooling', remoteAddress: '10.0.0.1', headers: { 'x-profiler-keep': SECRET } })
  t.equal(poll.statusCode, 200, 'the issue\'s route: no 401 or 429 for a keep header')
  t.equal(poll.headers['x-debug-token'], undefined, 'nor kept')

  t.type((await lookup(app, '10.0.0.2', SECRET)).headers['x-debug-token'], 'string', 'another address is not locked out')
  t.equal((await pageLogin(app, '10.0.0.1', SECRET)).statusCode, 429, 'the pages\' login is locked out by the keep header\'s failures')
  t.equal((await pageLogin(app, '10.0.0.2', SECRET)).statusCode, 200, 'not for the other address')
  await app.profileStore.flush()
  t.equal((await listProfiles(app)).filter(p => p.url.endsWith(LOOKUP)).length, 2, 'only the two granted requests are stored')
})

t.test('wrong page logins lock the keep header out too; the lock is counted from the limit on', async t => {
  const app = await sampledOut(t)
  for (let i = 0; i < MAX_FAILURES - 1; i++) t.equal((await pageLogin(app, '10.0.0.3', `wrong-${i}`)).statusCode, 401)
  t.type((await lookup(app, '10.0.0.3', SECRET)).headers['x-debug-token'], 'string', 'one failure short of the limit: still kept')
  t.equal((await lookup(app, '10.0.0.3', 'wrong-keep')).headers['x-debug-token'], undefined, 'a wrong keep header: the limit\'s last failure')
  t.equal((await pageLogin(app, '10.0.0.3', SECRET)).statusCode, 429, 'the pages\' login counts it: locked out')
  const right = await lookup(app, '10.0.0.3', SECRET)
  t.equal(right.statusCode, 200)
  t.equal(right.headers['x-debug-token'], undefined, 'the right keep header is ignored while locked out')
})

t.test('wrong page logins lock the keep header out too, on a fresh limiter', async t => {
  const other = await sampledOut(t)
  for (let i = 0; i < MAX_FAILURES; i++) await pageLogin(other, '10.0.0.4', `wrong-${i}`)
  const locked = await lookup(other, '10.0.0.4', SECRET)
  t.equal(locked.statusCode, 200, 'the business answer after 10 wrong page logins')
  t.equal(locked.headers['x-debug-token'], undefined, 'the keep header locked out by the pages\' failures')
})

t.test('guesses sent together are all counted before the right one behind them', async t => {
  const app = await sampledOut(t)
  const answers = await Promise.all([
    ...Array.from({ length: 50 }, async (_, i) => await lookup(app, '10.0.0.5', `together-${i}`)),
    lookup(app, '10.0.0.5', SECRET)
  ])
  t.ok(answers.every(res => res.statusCode === 200), 'every answer a 200')
  t.equal(answers.filter(res => res.headers['x-debug-token'] !== undefined).length, 0, 'none kept, the right one included')
})

t.test('without PROFILER_SECRET the header does nothing and counts nothing', async t => {
  const app = await buildApp(testConfig(t, { PROFILER_SAMPLE: '0' }))
  t.teardown(() => app.close())
  for (let i = 0; i < 20; i++) {
    const res = await lookup(app, '127.0.0.1', `anything-${i}`)
    t.equal(res.statusCode, 200)
    t.equal(res.headers['x-debug-token'], undefined)
  }
})

t.test('generated header values: the answer is the business answer, never kept, and each wrong one counts', async t => {
  const app = await sampledOut(t)
  const plain = await lookup(app, '10.1.0.0')
  let run = 0
  // Header values as a client can send them: visible ASCII, spaces and tabs inside, Latin-1 bytes.
  const value = fc.string({ unit: fc.oneof(fc.integer({ min: 0x20, max: 0x7e }), fc.integer({ min: 0xa0, max: 0xff })).map(c => String.fromCharCode(c)), minLength: 1, maxLength: 200 })
    .map(text => text.trim())
    .filter(text => text !== '' && text !== SECRET)
  await fc.assert(fc.asyncProperty(value, async keep => {
    // Each run from an address of its own: MAX_FAILURES - 1 wrong values leave it open, one more locks it.
    const address = `10.1.${Math.floor(++run / 250)}.${run % 250}`
    for (let i = 0; i < MAX_FAILURES - 1; i++) {
      const res = await lookup(app, address, keep)
      if (res.statusCode !== plain.statusCode || res.body !== plain.body || res.headers['x-debug-token'] !== undefined) return false
    }
    if ((await lookup(app, address, SECRET)).headers['x-debug-token'] === undefined) return false
    await lookup(app, address, keep)
    const locked = await lookup(app, address, SECRET)
    return locked.statusCode === plain.statusCode && locked.body === plain.body && locked.headers['x-debug-token'] === undefined
  }), { numRuns: 60, seed: 3701 })
  t.pass('60 generated values')
})

t.test('IPv6 addresses are counted by their /64: rotating the host part does not escape the limit', async t => {
  const app = await sampledOut(t)
  const host = (i: number): string => `2001:db8:1:2:${(i + 1).toString(16)}::${(i * 7 + 3).toString(16)}`
  for (let i = 0; i < MAX_FAILURES; i++) t.equal((await pageLogin(app, host(i), `wrong-${i}`)).statusCode, 401, `wrong password from ${host(i)}`)
  t.equal((await pageLogin(app, '2001:db8:1:2::ffff', SECRET)).statusCode, 429, 'another address of the same /64: locked out')
  t.equal((await pageLogin(app, '2001:0db8:0001:0002:0000:0000:0000:0001', SECRET)).statusCode, 429, 'the same /64 written in full: locked out')
  t.equal((await pageLogin(app, '2001:db8:1:3::1', SECRET)).statusCode, 200, 'the next /64: not')

  for (let i = 0; i < MAX_FAILURES; i++) await lookup(app, `2001:db8:9:9::${(i + 1).toString(16)}`, `guess-${i}`)
  t.equal((await lookup(app, '2001:db8:9:9:abcd:1234:5678:9abc', SECRET)).headers['x-debug-token'], undefined, 'wrong keep headers over one /64: its right one is ignored')
  t.type((await lookup(app, '10.0.0.9', SECRET)).headers['x-debug-token'], 'string', 'an IPv4 client is its own key')
  t.type((await lookup(app, '::ffff:10.0.0.10', SECRET)).headers['x-debug-token'], 'string', 'an IPv4-mapped client is counted as its IPv4 address')
})
