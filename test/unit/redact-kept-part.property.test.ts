// run-suite: shares a process
// The redactor's two shortcuts for the writer (issue 38) against its whole copy, fields(): a body
// kept as a 64 KiB preview is redacted only as far as the preview reaches (redactedBody), and a
// response body just parsed is redacted in place (parsedJson). Each gives what the copy gives, and
// no planted secret reaches what is stored.
import { isDeepStrictEqual } from 'node:util'
import fc from 'fast-check'
import t from 'tap'
import { REDACTED, Redactor, type RedactionRules } from '../../lib/redact.js'
import { MAX_BODY_BYTES, redactedBody } from '../../plugins/profiler/capture/body-preview.js'

const SECRET = 'Zq9planted7Secret'
const RULES: RedactionRules[] = [{}, { fields: ['code'], values: ['localhost', 'k2'] }]

/** What the store kept before redactedBody: the whole copy, then its JSON cut (capture/body-preview.ts as it was). */
function wholeCopyThenCut (body: unknown, sentBytes: number, redactor: Redactor): unknown {
  const redacted = redactor.fields(body)
  if (redacted === undefined) return null
  const text = JSON.stringify(redacted)
  if (text === undefined || Buffer.byteLength(text) <= MAX_BODY_BYTES) return redacted
  return { truncated: true, bytes: sentBytes, preview: text.slice(0, MAX_BODY_BYTES) }
}

/** Strings of any length up to 8 KiB (most of 500 or more), some holding a secret in a form the redactor removes. */
const leaf = fc.oneof(
  fc.string({ maxLength: 40 }),
  { arbitrary: fc.integer({ min: 500, max: 8192 }).map(n => 'x'.repeat(n)), weight: 4 },
  fc.constantFrom(`password=${SECRET}`, `Bearer ${SECRET}`, `a b=c&token=${SECRET}`),
  fc.integer(),
  fc.constant(null),
  fc.constant(undefined)
)
const key = fc.oneof(fc.constantFrom('password', 'code', 'note', 'k2x', '__proto__', 'toJSON'), fc.string({ maxLength: 8 }))
/** A row of a body: fields of leaves, or of small nested values. */
const row = fc.dictionary(key, fc.oneof(leaf, fc.array(leaf, { maxLength: 4 }), fc.dictionary(key, leaf, { maxKeys: 4 })), { maxKeys: 6 })

t.test('redactedBody gives what the whole copy gave, cut or not, under each rule set', async t => {
  let previews = 0
  fc.assert(fc.property(fc.array(row, { minLength: 1, maxLength: 60, size: 'max' }), fc.integer({ min: 0, max: 1 }), (bodies, r) => {
    const redactor = new Redactor(RULES[r])
    const value = { items: bodies, [`password${r}`]: SECRET }
    const kept = redactedBody(value, 1234, redactor)
    const expected = wholeCopyThenCut(value, 1234, redactor)
    if ((kept as { truncated?: boolean }).truncated === true) previews++
    return isDeepStrictEqual(JSON.parse(JSON.stringify(kept)), JSON.parse(JSON.stringify(expected))) && !JSON.stringify(kept).includes(SECRET)
  }), { numRuns: 60, seed: 3861 })
  t.ok(previews > 10, `${previews} of them over the preview's size`)
})

t.test('a 1 MiB body is scanned only as far as its preview reaches', async t => {
  // 1,040 values of ~1 KB (the shape of test/e2e/locked-store-bodies), a secret in the last one.
  const body = { values: Array.from({ length: 1040 }, (_, i) => `${i} ${'v'.repeat(1000)}`), last: `password=${SECRET}` }
  let scanned = 0
  class Counting extends Redactor {
    override text (text: string): string {
      scanned++
      return super.text(text)
    }
  }
  const kept = redactedBody(body, 1024 * 1024, new Counting()) as { truncated: true, preview: string }
  t.equal(kept.truncated, true)
  t.equal(kept.preview, (wholeCopyThenCut(body, 1024 * 1024, new Redactor()) as { preview: string }).preview, 'the same preview')
  t.ok(scanned <= 80, `${scanned} texts scanned (a 64 KiB preview holds 65 of them; the whole copy scanned 1,041)`)
  t.notOk(JSON.stringify(kept).includes(SECRET))
})

t.test('parsedJson gives what fields() gives for JSON just parsed, under each rule set', async t => {
  const json = fc.letrec<{ value: unknown }>(tie => ({
    value: fc.oneof({ depthSize: 'small', withCrossShrink: true }, fc.string({ maxLength: 20 }), fc.constantFrom(`password=${SECRET}`, 4111111111111111, 'localhost:80', null, true, 1.5),
      fc.array(tie('value'), { maxLength: 6 }), fc.dictionary(key, tie('value'), { maxKeys: 6 }))
  })).value
  fc.assert(fc.property(json, fc.integer({ min: 0, max: 1 }), (value, r) => {
    const text = JSON.stringify({ value, password: SECRET })
    const redactor = new Redactor(RULES[r])
    const copied = JSON.stringify(redactor.fields(JSON.parse(text)))
    const inPlace = JSON.stringify(redactor.parsedJson(JSON.parse(text)))
    return inPlace === copied && !inPlace.includes(SECRET) && inPlace.includes(REDACTED)
  }), { numRuns: 300, seed: 3862 })
  // The value cap and the depth cap, as the copy applies them.
  const wide = JSON.stringify(Array.from({ length: 10_050 }, (_, i) => i))
  const deep = `${'['.repeat(40)}1${']'.repeat(40)}`
  for (const text of [wide, deep, '{"__proto__":{"a":1},"b":2}']) {
    const redactor = new Redactor()
    t.equal(JSON.stringify(redactor.parsedJson(JSON.parse(text))), JSON.stringify(redactor.fields(JSON.parse(text))))
  }
})
