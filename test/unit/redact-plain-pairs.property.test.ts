// run-suite: shares a process
// The redactor's cheap scan lets a text through without the full scan when each of its pairs has no
// value or a short number under a name that is no secret's (lib/redact.ts, plainPairName): the
// Server-Timing header, new in every response, is such a text. For generated texts of such pairs and
// their near misses (secret names, escaped names, long numbers, card numbers, other values and
// separators), the text comes out as the full scan makes it: the same text with " eyJ" after it,
// which the cheap scan never lets through, comes out as the text's redaction with " eyJ" after it.
import fc from 'fast-check'
import t from 'tap'
import { Redactor } from '../../lib/redact.js'

const redactors = [new Redactor(), new Redactor({ fields: ['dur'] }, { memo: true })]

const name = fc.constantFrom('dur', 'desc', 'a', 'x.y', 'app', 'password', 'pin', 'PIN', 'token', '%70assword', 'my+password', 'api_key', 'session-id', 'durable', '')
const value = fc.oneof(
  fc.stringMatching(/^[0-9.]{0,15}$/),
  fc.constantFrom('', '"2 queries"', 'abc', '4111111111111111', '5555 5555 5555 4444', 'eyJhbGciOi.eyJzdWIi.c2ln', '1=2', '0.5x')
)
const separator = fc.constantFrom(';', ', ', ' ', '&', '"', ':', '', '=', '\u00a0', '\t', '?', '#')
const text = fc.tuple(fc.constantFrom('', 'db;', 'app;', 'x '), fc.array(fc.tuple(name, value, separator), { minLength: 1, maxLength: 5 }))
  .map(([head, pairs]) => head + pairs.map(([n, v, s]) => `${n}=${v}${s}`).join(''))

t.test('a text of plain pairs comes out as the full scan makes it', async t => {
  let checked = 0
  fc.assert(fc.property(text, fc.nat(redactors.length - 1), (generated, r) => {
    const redactor = redactors[r] as Redactor
    const scanned = redactor.text(`${generated} eyJ`)
    if (redactor.text(generated) !== scanned.slice(0, -' eyJ'.length)) throw new Error(`${JSON.stringify(generated)}: ${JSON.stringify(redactor.text(generated))}, the full scan ${JSON.stringify(scanned)}`)
    checked++
  }), { numRuns: 3000, seed: 3841 })
  t.equal(checked, 3000)
})

t.test('the Server-Timing header is kept as it is; a secret-named pair among such pairs is not', async t => {
  const redactor = new Redactor()
  const timing = 'db;dur=0.062;desc="2 queries", app;dur=0.987'
  t.equal(redactor.text(timing), timing)
  t.equal(redactor.text('db;dur=0.062;pin=1234;desc="2 queries"'), 'db;dur=0.062;pin=%5Bredacted%5D;desc="2 queries"')
  t.equal(new Redactor({ fields: ['dur'] }).text(timing), 'db;dur=%5Bredacted%5D;desc="2 queries", app;dur=%5Bredacted%5D', 'a configured field name too')
})
