// run-suite: shares a process
// One secret-name rule for query parameters (judged pair by pair, once decoded: `+` and `%20` are
// spaces, escapes and case do not matter), header names and body fields; and PROFILER_SECRET's
// value masked wherever and however it is sent. Checked on generated names and values through
// everything that shows a request: the stored URL and panels, the listing, HAR, cURL, the log line,
// and the raw bytes of the store.
import fc from 'fast-check'
import t from 'tap'
import { buildApp } from '../../app.js'
import { buildTestApp, testConfig } from '../helpers/app.js'
import { tokenOf } from '../helpers/debug-token.js'
import { basicAuth, listProfiles, profileJson } from '../helpers/profiler.js'
import { sqliteStoreContents } from '../helpers/sqlite-panels.js'

/** Fragments the rule calls secret, as they may appear in a name (spaces spelled below). */
const FRAGMENTS = ['password', 'passwd', 'pwd', 'passphrase', 'secret', 'token', 'api key', 'api_key', 'apikey', 'auth', 'credential', 'cookie', 'cvv'] as const
const word = fc.stringMatching(/^[a-z]{1,6}$/)
/** A secret-named name of words: "my password", "x api key y" (at least one space). */
const secretName = fc.tuple(fc.array(word, { minLength: 1, maxLength: 2 }), fc.constantFrom(...FRAGMENTS), fc.array(word, { maxLength: 2 }))
  .map(([before, fragment, after]) => [...before, fragment, ...after].join(' '))
/** A value found nowhere else. */
const secretValue = fc.stringMatching(/^[A-Za-z0-9]{12,20}$/).map(text => `Zq9${text}`)
/** How each character is written: as is, upper case, or escaped (hex in either case); a space as `+` or `%20`. */
const spellings = fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 64, maxLength: 64 })

const escaped = (character: string, upper: boolean): string => {
  const hex = [...new TextEncoder().encode(character)].map(byte => `%${byte.toString(16).padStart(2, '0')}`).join('')
  return upper ? hex.toUpperCase() : hex
}

/** A query-string name spelled in one of the ways a server reads as `name` (any case). */
function spelledName (name: string, picks: number[]): string {
  return [...name].map((character, i) => {
    const pick = picks[i % picks.length] ?? 0
    if (character === ' ') return pick % 2 === 0 ? '+' : '%20'
    if (pick === 1) return character.toUpperCase()
    return pick >= 2 && /[a-z]/.test(character) ? escaped(character, pick === 3) : character
  }).join('')
}

/** A text spelled for a query string so that the server reads exactly `text`. */
function spelledValue (text: string, picks: number[]): string {
  return [...text].map((character, i) => {
    const pick = picks[i % picks.length] ?? 0
    if (character === ' ') return pick % 2 === 0 ? '+' : '%20'
    if (pick <= 1 && /[A-Za-z0-9._~-]/.test(character)) return character
    return escaped(character, pick === 3)
  }).join('')
}

/** A query-string part as the server reads it (the spellings above are always valid escapes). */
const decoded = (text: string): string => decodeURIComponent(text.replaceAll('+', ' '))

/** Everything a profile is shown as: its JSON, the listing, HAR and cURL. */
async function everyView (app: Awaited<ReturnType<typeof buildApp>>, token: string): Promise<{ profile: Record<string, any>, text: string }> {
  const profile = await profileJson(app, token)
  const auth = app.config.profilerSecret === null ? {} : { authorization: basicAuth(app.config.profilerSecret) }
  const har = await app.inject({ url: `/_profiler/${token}/har`, headers: auth })
  const curl = await app.inject({ url: `/_profiler/${token}/curl`, headers: auth })
  const listing = await listProfiles(app, 'limit=5')
  return { profile, text: [JSON.stringify(profile), har.body, curl.body, JSON.stringify(listing)].join('\n') }
}

t.test('a query parameter whose decoded name is secret (`my+password`, `Api%20KEY`, `pass%77ord`) is redacted everywhere', async t => {
  const lines: string[] = []
  const app = await buildApp(testConfig(t, { LOG_LEVEL: 'info' }), { logStream: { write: line => { lines.push(line) } } })
  t.teardown(async () => { await app.close() })
  await app.ready()
  await fc.assert(fc.asyncProperty(secretName, spellings, secretValue, async (name, picks, value) => {
    const written = spelledName(name, picks)
    const res = await app.inject({ url: `/nope?${written}=${value}&page=2` })
    const { profile, text } = await everyView(app, tokenOf(res))
    t.equal(profile.url, `http://localhost/nope?${written}=%5Bredacted%5D&page=2`, `${written}: the stored URL keeps the name as written`)
    t.same(profile.panels.request.query, { [decoded(written)]: '[redacted]', page: '2' }, `${written}: the panel's query, as the server decoded it`)
    t.notOk(text.includes(value), `${written}: not in the profile, listing, HAR or cURL`)
    t.notOk(lines.some(line => line.includes(value)), `${written}: not in the log`)
  }), { numRuns: 40, seed: 2101, examples: [['my password', [0], 'Zq9hunter2hunter2'], ['api key', [0], 'Zq9apikeyvalue1'], ['api key', [1], 'Zq9apikeyvalue2']] })
})

t.test('a header whose name the secret-name rule matches (X-Access-Token, Private-Token, X-Db-Password) is redacted', async t => {
  const app = await buildTestApp(t)
  const headerName = fc.tuple(secretName, spellings).map(([name, picks]) =>
    name.split(/[ _]/).map((part, i) => (picks[i] ?? 0) % 2 === 0 ? part : part.replace(/^\w/, c => c.toUpperCase())).join('-'))
  await fc.assert(fc.asyncProperty(headerName, secretValue, async (name, value) => {
    const res = await app.inject({ url: '/nope', headers: { [name]: value } })
    const { profile, text } = await everyView(app, tokenOf(res))
    t.equal(profile.panels.request.requestHeaders[name.toLowerCase()], '[redacted]', `${name}: redacted in the request panel`)
    t.notOk(text.includes(value), `${name}: not in the profile, listing, HAR or cURL`)
  }), { numRuns: 40, seed: 2102, examples: [['X-Access-Token', 'Zq9accesstoken1'], ['Private-Token', 'Zq9privatetoken1'], ['X-Db-Password', 'Zq9dbpassword1']] })
  const own = await app.inject({ url: '/nope', headers: { 'x-request-id': 'kept-as-is' } })
  const panel = (await profileJson(app, tokenOf(own))).panels.request
  t.equal(panel.requestHeaders['x-request-id'], 'kept-as-is', 'other headers are kept')
  t.equal(panel.response.headers['x-debug-token'], tokenOf(own), 'the profiler\'s own token header is kept')
})

t.test('PROFILER_SECRET\'s value, sent under any name and in any spelling, is not stored', async t => {
  // Characters a URL must escape among others; no space at either end (header values are trimmed).
  const secret = fc.stringMatching(/^[A-Za-z0-9 ._~/+!-]{14,30}$/).map(text => `S${text}x`)
  await fc.assert(fc.asyncProperty(secret, spellings, async (secret, picks) => {
    const app = await buildApp(testConfig(t, { PROFILER_SECRET: secret }))
    try {
      await app.ready()
      const asQuery = await app.inject({ url: `/nope?q=${spelledValue(secret, picks)}&page=2`, headers: { 'x-note': `before ${secret} after` } })
      const asField = await app.inject({
        method: 'POST',
        url: '/monitor/MonitorPooling',
        headers: { 'content-type': 'application/json' },
        payload: JSON.stringify({ note: `a ${secret} b`, [secret]: 'as a name', list: [secret] })
      })
      for (const res of [asQuery, asField]) {
        const { profile, text } = await everyView(app, tokenOf(res))
        t.notOk(text.includes(secret), `${secret}: not in the profile, listing, HAR or cURL`)
        t.notOk(decoded(profile.url).includes(secret), `${secret}: not in the stored URL, once decoded`)
      }
      await app.profileStore.flush()
      const path = app.config.profilerDatabasePath
      for (const { where, bytes } of sqliteStoreContents(path)) {
        t.equal(bytes.indexOf(secret), -1, `${secret}: not in ${where}`)
      }
    } finally {
      await app.close()
    }
  }), { numRuns: 12, seed: 2103 })
})
