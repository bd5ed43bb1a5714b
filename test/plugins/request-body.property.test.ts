// run-suite: shares a process
// Properties of the body transformer on generated hostile bodies: whatever the bytes, the answer is
// never a 5xx, a 400 says what is wrong with the body, and JSON nested past the limit is refused
// before it is parsed (the scan is linear and keeps no stack of its own).
import fc from 'fast-check'
import t from 'tap'
import { buildTestApp } from '../helpers/app.js'
import { hostileText, largeHostileText } from '../helpers/hostile.js'

const LOOKUP = '/ccenter/getConseillerByCode'
const CONTENT_TYPES = ['application/json', 'application/vnd.api+json', 'application/x-www-form-urlencoded']
/** What a 400 of the transformer or of the schema says: the body, or the field, is named. */
const SAYS_WHAT = /^(Request body |body\/code |body must )/

t.test('hostile bodies of every accepted type: a 4xx that names the body or the field, never a 5xx', async t => {
  const app = await buildTestApp(t)
  const answers = new Map<number, number>()
  await fc.assert(fc.asyncProperty(hostileText(), fc.constantFrom(...CONTENT_TYPES), async (body, type) => {
    const res = await app.inject({ method: 'POST', url: LOOKUP, headers: { 'content-type': type }, payload: body })
    answers.set(res.statusCode, (answers.get(res.statusCode) ?? 0) + 1)
    if (res.statusCode >= 500) return false
    if (res.statusCode !== 400) return true
    return SAYS_WHAT.test(res.json().message)
  }), { numRuns: 300, seed: 7001 })
  t.ok((answers.get(400) ?? 0) > 0, `answers: ${JSON.stringify(Object.fromEntries(answers))}`)
})

t.test('JSON nested past 64 levels, in any mix of objects and arrays, is a 400 that says so', async t => {
  const app = await buildTestApp(t)
  const opener = fc.constantFrom('[', '{"a":', '[{"b":')
  await fc.assert(fc.asyncProperty(fc.array(opener, { minLength: 65, maxLength: 20_000 }), async openers => {
    const res = await app.inject({ method: 'POST', url: LOOKUP, headers: { 'content-type': 'application/json' }, payload: `{"code":${openers.join('')}` })
    return res.statusCode === 400 && res.json().message === 'Request body nests objects or arrays deeper than 64 levels'
  }), { numRuns: 60, seed: 7002 })
  t.pass('60 generated nestings')
})

t.test('brackets, quotes and backslash runs inside strings are not nesting; the brackets around them are', async t => {
  const app = await buildTestApp(t)
  // Strings whose escaped form holds \" and runs of backslashes before a quote, between the openers.
  const tricky = fc.string({ unit: fc.constantFrom('[', '{', ']', '}', '"', '\\', 'a'), maxLength: 12 })
  await fc.assert(fc.asyncProperty(fc.array(tricky, { minLength: 1, maxLength: 8 }), fc.integer({ min: 40, max: 90 }), async (strings, depth) => {
    const openers = Array.from({ length: depth }, (_, i) => `[${JSON.stringify(strings[i % strings.length])},`).join('')
    const res = await app.inject({ method: 'POST', url: LOOKUP, headers: { 'content-type': 'application/json' }, payload: `{"code":"ADV1001","x":${openers}null${']'.repeat(depth)}}` })
    const refused = res.statusCode === 400 && res.json().message === 'Request body nests objects or arrays deeper than 64 levels'
    // The body object is one level: refused exactly when the arrays take it past 64.
    return res.statusCode < 500 && refused === (depth + 1 > 64)
  }), { numRuns: 100, seed: 7004 })
  t.pass('100 generated nestings around strings')
})

t.test('bodies up to 1 MiB of one hostile unit: answered with a 4xx, the service still answers', async t => {
  const app = await buildTestApp(t)
  await fc.assert(fc.asyncProperty(largeHostileText(1024 * 1000), fc.constantFrom(...CONTENT_TYPES), async (body, type) => {
    const res = await app.inject({ method: 'POST', url: LOOKUP, headers: { 'content-type': type }, payload: body })
    return res.statusCode >= 400 && res.statusCode < 500
  }), { numRuns: 6, seed: 7003 })
  const poll = await app.inject({ method: 'POST', url: '/monitor/MonitorPooling' })
  t.equal(poll.statusCode, 200)
})
