// run-suite: shares a process
// For any PROFILER_SECRET and any database password (with '/', '#', '?', '@', ':', '%' and non-ASCII
// characters unencoded), nothing of either reaches the console's lines, the environment panel (page
// and JSON) or the profile: the secret sent as the Host header, in the query and in a header of its
// own; the password given in DATABASE_URL as a person would type it.
import fc from 'fast-check'
import t from 'tap'
import { tokenOf } from '../helpers/debug-token.js'
import { buildLoggedApp } from '../helpers/logged-app.js'
import { profileJson, profilerHtml } from '../helpers/profiler.js'

/** A run of letters and digits long enough that finding it anywhere else is no chance. */
const word = fc.stringMatching(/^[A-Za-z0-9]{6,9}$/).map(run => `Q7${run}`)
/** What separates a password's words: the characters a URL must escape, and non-ASCII ones. */
const passwordSeparator = fc.constantFrom('/', '#', '?', '@', ':', '%', '%2', 'é', 'ü', '中', '😀', '/#', '?@')
/** A secret travels in a Host header too: printable ASCII only there. */
const secretSeparator = fc.constantFrom('/', '#', '?', '@', ':', '%', '-', '.', '+', '=')

const joined = (separator: fc.Arbitrary<string>): fc.Arbitrary<{ text: string, words: string[] }> =>
  fc.array(fc.tuple(word, separator), { minLength: 2, maxLength: 3 })
    .map(parts => ({ text: parts.map(([w, s], i) => i < parts.length - 1 ? w + s : w).join(''), words: parts.map(([w]) => w) }))

t.test('no piece of the secret or the password in the log, the environment panel or the profile', async t => {
  let runs = 0
  await fc.assert(fc.asyncProperty(joined(secretSeparator), joined(passwordSeparator), async (secret, password) => {
    runs++
    const { app, logLines } = await buildLoggedApp(t, {
      PROFILER_SECRET: secret.text.padEnd(16, 'x'),
      DATABASE_URL: `postgres://app:${password.text}@127.0.0.1:9/advisors`
    })
    try {
      const res = await app.inject({
        url: `/robots.txt?q=${encodeURIComponent(app.config.profilerSecret ?? '')}`,
        headers: { host: app.config.profilerSecret ?? '', 'x-note': `sent ${app.config.profilerSecret ?? ''} here` }
      })
      const token = tokenOf(res)
      const shown = [
        logLines(/./).join('\n'),
        JSON.stringify(await profileJson(app, token)),
        await profilerHtml(app, `/${token}?panel=env`),
        await profilerHtml(app, `/${token}?panel=request`)
      ].join('\n')
      const pieces = [...secret.words, ...password.words].filter(piece => shown.includes(piece))
      if (pieces.length > 0) throw new Error(`shown: ${pieces.join(', ')}`)
    } finally {
      await app.close()
    }
  }), { numRuns: 20, seed: 3707 })
  t.equal(runs, 20, '20 secrets and passwords')
})
