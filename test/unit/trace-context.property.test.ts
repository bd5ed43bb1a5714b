// run-suite: shares a process
// The W3C Trace Context rules, over generated headers: every valid traceparent gives back its ids
// and flags; every way of breaking one (a version, a length, a case, a zero id, a separator) gives
// nothing; tracestate is kept only whole and valid, and never without a valid traceparent.
import fc from 'fast-check'
import t from 'tap'
import { parseTraceparent, parseTracestate, traceContextOf } from '../../lib/trace-context.js'

const hex = (length: number): fc.Arbitrary<string> => fc.stringMatching(new RegExp(`^[0-9a-f]{${length}}$`))
const nonZero = (length: number): fc.Arbitrary<string> => hex(length).filter(id => /[1-9a-f]/.test(id))
const version = hex(2).filter(v => v !== 'ff')
const valid = fc.record({ version, traceId: nonZero(32), parentSpanId: nonZero(16), flags: hex(2), tail: fc.stringMatching(/^[ -~]{0,20}$/) })
/** A valid header: version 00 exactly, a later version with or without fields after a dash. */
interface Parts { version: string, traceId: string, parentSpanId: string, flags: string, tail: string }
const header = ({ version, traceId, parentSpanId, flags, tail }: Parts): string =>
  `${version}-${traceId}-${parentSpanId}-${flags}${version === '00' || tail === '' ? '' : `-${tail}`}`

t.test('a valid traceparent gives its trace id, parent span id and sampled flag', async t => {
  fc.assert(fc.property(valid, parts => {
    const parsed = parseTraceparent(header(parts))
    return parsed !== null && parsed.traceId === parts.traceId && parsed.parentSpanId === parts.parentSpanId &&
      parsed.sampled === ((Number.parseInt(parts.flags, 16) & 1) === 1)
  }), { numRuns: 2000 })
  t.same(parseTraceparent('00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01'), { traceId: '4bf92f3577b34da6a3ce929d0e0e4736', parentSpanId: '00f067aa0ba902b7', sampled: true }, 'the specification\'s example')
})

/** Ways to break a valid header, each named. */
const breakings: Array<[string, (value: string) => string]> = [
  ['uppercase hex', value => value.replace(/[a-f]/, c => c.toUpperCase())],
  ['version ff', value => `ff${value.slice(2)}`],
  ['a character removed', value => value.slice(0, 10) + value.slice(11)],
  ['version 00 with a field appended', value => `00${value.slice(2, 55)}-01`],
  ['a later version with no dash after its fields', value => `01${value.slice(2, 55)}x`],
  ['all-zero trace id', value => `${value.slice(0, 3)}${'0'.repeat(32)}${value.slice(35)}`],
  ['all-zero parent span id', value => `${value.slice(0, 36)}${'0'.repeat(16)}${value.slice(52)}`],
  ['a separator that is not a dash', value => `${value.slice(0, 2)}_${value.slice(3)}`],
  ['a non-hex digit', value => `${value.slice(0, 40)}g${value.slice(41)}`]
]

t.test('a traceparent broken any way is ignored', async t => {
  for (const [what, broken] of breakings) {
    fc.assert(fc.property(valid.map(parts => ({ ...parts, version: '00' })), parts => {
      const value = header(parts)
      // A breaking that changes nothing (no letter to uppercase) does not apply to this header.
      fc.pre(broken(value) !== value)
      return parseTraceparent(broken(value)) === null
    }), { numRuns: 300 })
    t.pass(what)
  }
  fc.assert(fc.property(fc.string({ maxLength: 80 }), value => {
    const parsed = parseTraceparent(value)
    return parsed === null || /^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}/.test(value)
  }), { numRuns: 3000 })
})

const key = fc.oneof(fc.stringMatching(/^[a-z][a-z0-9_\-*/]{0,15}$/), fc.stringMatching(/^[a-z0-9][a-z0-9_\-*/]{0,8}@[a-z][a-z0-9_\-*/]{0,5}$/))
const stateValue = fc.stringMatching(/^[ -+\--<>-~]{0,10}[!-+\--<>-~]$/)

t.test('tracestate: valid members are kept in order; one bad member, a repeated key or more than 32 drop it all', async t => {
  fc.assert(fc.property(fc.uniqueArray(fc.tuple(key, stateValue), { minLength: 1, maxLength: 32, selector: ([k]) => k }), members => {
    const joined = members.map(([k, v]) => `${k}=${v}`)
    return parseTracestate(joined.join(' ,\t')) === joined.join(',')
  }), { numRuns: 1000 })
  t.equal(parseTracestate('congo=t61rcWkgMzE, rojo=00f067aa0ba902b7'), 'congo=t61rcWkgMzE,rojo=00f067aa0ba902b7')
  t.equal(parseTracestate('a=1,,b=2'), 'a=1,b=2', 'empty members are skipped')
  t.equal(parseTracestate('a=1,a=2'), null, 'a repeated key')
  t.equal(parseTracestate('A=1'), null, 'an uppercase key')
  t.equal(parseTracestate('a=x=y'), null, 'an equals sign in a value')
  t.equal(parseTracestate('a=1 '), 'a=1', 'trailing space is the list\'s, not the value\'s')
  t.equal(parseTracestate(Array.from({ length: 33 }, (_, i) => `k${i}=v`).join(',')), null, '33 members')
  t.equal(parseTracestate(''), null)
})

t.test('from request headers: trimmed, repeated or alone', async t => {
  const parent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00'
  t.same(traceContextOf({ traceparent: ` ${parent} `, tracestate: ['a=1', 'b=2'] }), { traceId: '4bf92f3577b34da6a3ce929d0e0e4736', parentSpanId: '00f067aa0ba902b7', sampled: false, traceState: 'a=1,b=2' })
  t.equal(traceContextOf({ traceparent: `${parent}, ${parent}` }), null, 'two traceparent headers, as Node joins them')
  t.equal(traceContextOf({ tracestate: 'a=1' }), null, 'tracestate alone')
  t.same(traceContextOf({ traceparent: parent, tracestate: 'A=1' })?.traceState, null, 'a bad tracestate is dropped, the traceparent kept')
})
