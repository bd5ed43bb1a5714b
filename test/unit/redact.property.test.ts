// run-suite: shares a process
// Properties of the redactor on generated adversarial text: it never throws (no recursion on the
// input's structure), its output is bounded by the scan limit, and no secret survives, whatever
// surrounds it.
import fc from 'fast-check'
import t from 'tap'
import { MAX_SCAN_CHARS, REDACTED, Redactor } from '../../lib/redact.js'
import { hostileText, largeHostileText } from '../helpers/hostile.js'

const redactor = new Redactor()
/** The marker that replaces what lies beyond the scan limit is short. */
const MAX_OUTPUT = MAX_SCAN_CHARS + 100
const secretValue = fc.stringMatching(/^[A-Za-z0-9]{10,16}$/).map(s => `Zq9${s}`)
const CARDS = ['4111111111111111', '5555 5555 5555 4444', '3782-822463-10005']

/** A secret in each form the redactor promises to remove, and the text that must not survive. */
const secretForm = fc.oneof(
  secretValue.map(s => ({ form: `password=${s}`, secret: s })),
  secretValue.map(s => ({ form: `a=b=access_token=${s}`, secret: s })),
  secretValue.map(s => ({ form: `eyJhbGciOiJIUzI1NiJ9.${s}.c2lnbmF0dXJl`, secret: s })),
  secretValue.map(s => ({ form: `Bearer ${s}`, secret: s })),
  // A URL's user info, after a URL without any (which alone is no reason for the full scan).
  secretValue.map(s => ({ form: `http://a.example/x redis://u:${s}@cache.example`, secret: s })),
  fc.constantFrom(...CARDS).map(card => ({ form: card, secret: card }))
)

t.test('the exact shape that ended the process: "/?x=" then "a=" 6,000 times', async t => {
  const url = `/?x=${'a='.repeat(6000)}`
  t.equal(redactor.url(url), url, 'nothing secret, kept as is, no stack overflow')
  t.equal(redactor.url(`${url}&password=hunter22`), `${url}&password=%5Bredacted%5D`)
  t.equal(redactor.text(`x=${'a='.repeat(6000)}password=hunter22`), 'x=%5Bredacted%5D', 'a secret nested 6,000 pairs deep')
})

t.test('text and URL: never throw, output bounded, on generated hostile text', async t => {
  fc.assert(fc.property(hostileText(), text => {
    const out = redactor.text(text)
    const url = redactor.url(`/x?${text}`)
    return out.length <= MAX_OUTPUT && url.length <= MAX_OUTPUT + 3
  }), { numRuns: 150, seed: 9001 })
  t.pass('150 generated texts')
})

t.test('text and URL of up to 1 MiB: never throw; beyond the scan limit the text is redacted', async t => {
  fc.assert(fc.property(largeHostileText(), text => {
    const out = redactor.text(text)
    redactor.url(`/?x=${text}`)
    return out.length <= MAX_OUTPUT && out.endsWith('-character scan limit]')
  }), { numRuns: 6, seed: 9002 })
  t.pass('6 texts of 256 KiB to 1 MiB')
})

t.test('no secret survives, whatever hostile text surrounds it (or wherever the scan limit falls)', async t => {
  fc.assert(fc.property(hostileText(), secretForm, hostileText(), (before, { form, secret }, after) => {
    const text = `${before} ${form} ${after}`
    return !redactor.text(text).includes(secret) && !redactor.url(`/p?q=1&${text}`).includes(secret)
  }), { numRuns: 300, seed: 9003 })
  fc.assert(fc.property(fc.integer({ min: MAX_SCAN_CHARS - 5000, max: MAX_SCAN_CHARS + 10 }), secretForm, (at, { form, secret }) => {
    const text = `${'a '.repeat(at / 2)} ${form} tail`
    return !redactor.text(text).includes(secret)
  }), { numRuns: 100, seed: 9004 })
  t.pass('secrets among hostile text, and straddling the scan limit')
})

t.test('a secret-named query value written with escapes is redacted once decoded', async t => {
  fc.assert(fc.property(secretValue, fc.constantFrom('a=token=', 'x=password=', 'q=a%3Dsecret%3D'), (secret, prefix) => {
    const url = `/p?${prefix}${encodeURIComponent(secret)}&z=${encodeURIComponent(`a=password=${secret}`)}`
    return !redactor.url(url).includes(secret)
  }), { numRuns: 100, seed: 9005 })
  t.pass('100 escaped secrets')
})

t.test('fields: nesting of any depth never throws and keeps no secret', async t => {
  const nested = fc.tuple(fc.integer({ min: 0, max: 5000 }), secretValue, fc.boolean()).map(([depth, secret, inArray]) => {
    let value: unknown = { password: secret, note: `a=b=token=${secret}` }
    for (let i = 0; i < depth; i++) value = inArray ? [value] : { level: value }
    return { value, secret }
  })
  fc.assert(fc.property(nested, ({ value, secret }) => {
    const out = JSON.stringify(redactor.fields(value))
    return !out.includes(secret) && (out.includes(REDACTED) || out.includes('[too deep]'))
  }), { numRuns: 60, seed: 9006 })
  t.pass('60 nestings up to 5,000 levels')
})
