// run-suite: shares a process
// Properties of the redaction of a body kept as sent (not parsed): whatever JSON-like or multipart
// text holds a secret-named field, malformed or cut anywhere, no part of its secret is kept; and
// hostile text of any type never makes it throw.
import fc from 'fast-check'
import t from 'tap'
import { redactBodyText } from '../../plugins/profiler/panels/request/redact-body-text.js'
import { Redactor } from '../../lib/redact.js'
import { hostileText } from '../helpers/hostile.js'

const redactor = new Redactor()
const secretValue = fc.stringMatching(/^[A-Za-z0-9]{10,16}$/).map(s => `Zq9${s}`)
const secretName = fc.constantFrom('password', 'api_key', 'accessToken', 'client_secret', 'Authorization', 'pin')
/** What a malformed body has around its fields. */
const junk = fc.constantFrom('', ', oops', '}}', ',,', ' "open', '\n]', 'x=1&y')

/** The first characters of a secret: a cut secret must not be kept in part either. */
const start = (secret: string): string => secret.slice(0, 8)

/** A secret-named key's value in each shape JSON-like text gives it (a bare word where it is malformed). */
const secretField = fc.tuple(secretName, secretValue, fc.constantFrom('string', 'bare', 'object', 'array')).map(([name, secret, shape]) => {
  const value = {
    string: `"${secret}"`,
    bare: secret,
    object: `{"a": "${secret}", "b": [1, {"c": "${secret}"}]}`,
    array: `["${secret}", {"x": "${secret}"}]`
  }[shape]
  return { secret, field: `"${name}" :  ${value}` }
})

t.test('JSON-like text: the value of a secret-named key is gone, malformed or cut anywhere', async t => {
  const body = fc.tuple(fc.jsonValue({ maxDepth: 2 }), secretField, fc.jsonValue({ maxDepth: 2 }), junk, junk)
    .map(([before, { secret, field }, after, junk1, junk2]) => ({ secret, text: `{"before": ${JSON.stringify(before)}${junk1}, ${field}, "after": ${JSON.stringify(after)}${junk2}}` }))
  fc.assert(fc.property(body, fc.double({ min: 0, max: 1, noNaN: true }), ({ secret, text }, at) => {
    const cut = Math.round(text.length * at)
    const kept = redactBodyText(redactor, text.slice(0, cut), 'application/json', cut < text.length)
    // Read as text/plain too: JSON-like text is read as such whatever its type.
    const plain = redactBodyText(redactor, text.slice(0, cut), 'text/plain', cut < text.length)
    return !kept.includes(start(secret)) && !plain.includes(start(secret))
  }), { numRuns: 400, seed: 2501 })
  t.pass('400 bodies')
})

t.test('multipart: the content of a secret-named part is gone, cut anywhere; the other parts are kept', async t => {
  const part = (name: string, content: string, eol: string): string => `--b0und${eol}Content-Disposition: form-data; name="${name}"${eol}${eol}${content}${eol}`
  const body = fc.tuple(secretName, secretValue, fc.constantFrom('\r\n', '\n'), fc.stringMatching(/^[a-z ]{0,20}$/))
    .map(([name, secret, eol, note]) => ({ secret, text: `${part('note', note, eol)}${part(name, secret, eol)}--b0und--${eol}` }))
  fc.assert(fc.property(body, fc.double({ min: 0, max: 1, noNaN: true }), ({ secret, text }, at) => {
    const cut = Math.round(text.length * at)
    const kept = redactBodyText(redactor, text.slice(0, cut), 'multipart/form-data; boundary=b0und', cut < text.length)
    const whole = redactBodyText(redactor, text, 'multipart/form-data; boundary="b0und"', false)
    return !kept.includes(start(secret)) && whole === text.replace(secret, '[redacted]')
  }), { numRuns: 300, seed: 2502 })
  t.pass('300 bodies')
})

t.test('hostile text of any type: never throws, never longer than a marker per value', async t => {
  const types = fc.constantFrom('application/json', 'text/plain', 'multipart/form-data; boundary=a', 'multipart/mixed; boundary="="', 'application/x-www-form-urlencoded', '')
  fc.assert(fc.property(hostileText(500), types, fc.boolean(), (text, type, truncated) => {
    const out = redactBodyText(redactor, text, type, truncated)
    return typeof out === 'string' && out.length <= text.length * 24 + 24
  }), { numRuns: 200, seed: 2503 })
  t.pass('200 texts')
})
