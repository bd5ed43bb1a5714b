// Generators of adversarial text for the property tests (fast-check): the shapes that broke or
// stalled the edge (nested `name=value` pairs, bracket runs, escape runs), plus what text can be.
import fc from 'fast-check'

/** Units whose repetition is the dangerous shape: each is repeated to build one run. */
const HOSTILE_UNITS = [
  'a=', '=', 'a=a&', '&a', '&', '?a=', '[', ']', '{', '{"a":', '[[', '%', '%E0%A4', '%25', '%00', '\u0000', '\\', '"', '\\"',
  'eyJ-', 'eyJa.', 'Bearer ', '2-', '4111 ', '0', ' ', '\t', '\n', ';', ',', '.', '/', '../', '-',
  'é', 'Ж', '中', 'ع', '😀', '\u0301', '\u202e', '\uD800', '\uDC00', '\uFFFF', 'A', 'Z', 'password=', 'token'
] as const

/** One unit repeated up to `maxRepeat` times ("a=a=a=...", "[[[[", "%%%%", lone surrogates...). */
function repeatedUnit (maxRepeat: number): fc.Arbitrary<string> {
  return fc.tuple(fc.constantFrom(...HOSTILE_UNITS), fc.integer({ min: 1, max: maxRepeat }))
    .map(([unit, times]) => unit.repeat(times))
}

/** Any UTF-16 code units, lone surrogates included. */
const codeUnits = (maxLength: number): fc.Arbitrary<string> =>
  fc.array(fc.integer({ min: 0, max: 0xffff }), { maxLength }).map(units => String.fromCharCode(...units))

/** Any code point but a lone surrogate (codeUnits makes those). */
const codePoint = fc.integer({ min: 0, max: 0x10ffff - 0x800 }).map(n => n < 0xd800 ? n : n + 0x800)

/**
 * Mixed scripts, control characters, emoji: any code points. Not fc.string({ unit: 'binary' }):
 * the first property run with it in a process maps all 1.1M code points back to their index (~1 s
 * of CPU, more under coverage), in every test file that uses it.
 */
export const anyText = (maxLength: number): fc.Arbitrary<string> =>
  fc.array(codePoint, { maxLength }).map(points => String.fromCodePoint(...points))

/** A concatenation of hostile runs and arbitrary text: the general adversarial text. */
export function hostileText (maxRepeat = 2000, pieces = 6): fc.Arbitrary<string> {
  return fc.array(fc.oneof(repeatedUnit(maxRepeat), codeUnits(64), anyText(64)), { minLength: 1, maxLength: pieces })
    .map(parts => parts.join(''))
}

/** A large adversarial text (up to about `maxBytes` characters): one unit repeated, for a few runs only. */
export function largeHostileText (maxBytes = 1024 * 1024): fc.Arbitrary<string> {
  return fc.tuple(fc.constantFrom(...HOSTILE_UNITS), fc.integer({ min: maxBytes / 4, max: maxBytes }))
    .map(([unit, bytes]) => unit.repeat(Math.max(1, Math.floor(bytes / unit.length))))
}
