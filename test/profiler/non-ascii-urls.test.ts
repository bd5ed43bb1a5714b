// run-suite: shares a process
// Non-ASCII URLs (issue 37, item 7) on both store engines: a decoded term finds the URL it names
// (`url=café` finds `/caf%C3%A9`, `/caf%c3%a9` too, and `admin` finds `/%61dmin`), through the same
// indexes and the scan alike, while every URL is listed exactly as its client sent it; a raw target
// that is not ASCII, which Node's parser refuses (valid UTF-8 or not), is stored and listed
// percent-encoded, never as mojibake (`/cafÃ©`), and found by the decoded term too.
import fc from 'fast-check'
import t from 'tap'
import BetterSqlite3 from 'better-sqlite3'
import { buildTestApp, listeningApp } from '../helpers/app.js'
import { anyText } from '../helpers/hostile.js'
import { queryOn } from '../helpers/postgres.js'
import { listProfiles } from '../helpers/profiler.js'
import { rawAnswer } from '../helpers/raw-http.js'
import { storeEngines, storeTarget } from '../helpers/store-engines.js'

/** A statement run on a store with a connection of its own (its rows, if any). */
async function onStore (env: Record<string, string>, sql: string): Promise<unknown[]> {
  const target = storeTarget(env)
  if (target.engine === 'postgres') return await queryOn(target.url, sql)
  const db = new BetterSqlite3(target.path)
  try {
    const statement = db.prepare(sql)
    return statement.reader ? statement.all() : (statement.run(), [])
  } finally {
    db.close()
  }
}

/** A character's UTF-8 bytes as escapes, each hex digit in the case `upper` picks. */
const escape = (char: string, upper: (i: number) => boolean): string =>
  [...Buffer.from(char, 'utf8')].map((byte, i) => { const hex = byte.toString(16).padStart(2, '0'); return `%${upper(i) ? hex.toUpperCase() : hex}` }).join('')

const isControl = (char: string): boolean => { const code = char.codePointAt(0) ?? 0; return code < 0x20 || code === 0x7f }

const rawGet = (target: Buffer): Buffer => Buffer.concat([Buffer.from('GET '), target, Buffer.from(' HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n')])

/** What the listing must show for a target's bytes: visible ASCII as it is, every other byte %XX. */
const encoded = (bytes: Buffer): string => [...bytes].map(byte => byte > 0x20 && byte < 0x7f ? String.fromCharCode(byte) : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`).join('')

t.jobs = 2
for (const engine of storeEngines(t)) {
  t.test(engine.name, { skip: engine.skip, buffered: true }, async t => {
    t.test('a decoded term finds the percent-encoded URL; raw targets refused by the parser are listed encoded', async t => {
      const { app, address } = await listeningApp(t, await engine.fresh(t))
      await app.inject({ url: '/caf%C3%A9/menu' })
      await app.inject({ url: '/cafe/menu' })
      await app.inject({ url: '/%E4%B8%AD%E6%96%87?q=%F0%9F%98%80' })
      const utf8 = await rawAnswer(address, rawGet(Buffer.from('/caf\u00e9/raw', 'utf8')))
      const invalid = await rawAnswer(address, rawGet(Buffer.from([0x2f, 0x78, 0xff, 0x79, 0xc3])))
      t.same([utf8.status, invalid.status], [400, 400], 'the parser refuses both targets')

      const listed = await listProfiles(app)
      const byToken = (token: string | undefined): string | undefined => listed.find(p => p.token === token)?.url
      t.equal(byToken(utf8.headers['x-debug-token']), 'http://localhost/caf%C3%A9/raw', 'UTF-8 bytes listed percent-encoded')
      t.equal(byToken(invalid.headers['x-debug-token']), 'http://localhost/x%FFy%C3', 'bytes that are no UTF-8 too')
      t.notOk(listed.some(p => /[^\x20-\x7e]/.test(p.url)), 'no listed URL holds a character outside ASCII (no mojibake)')

      const urls = async (term: string): Promise<string[]> => (await listProfiles(app, `url=${encodeURIComponent(term)}`)).map(p => p.url).sort()
      t.same(await urls('café'), ['http://localhost/caf%C3%A9/menu', 'http://localhost/caf%C3%A9/raw'], 'café finds the encoded URLs, accepted and refused')
      t.same(await urls('caf%C3%A9'), await urls('café'), 'the term written encoded finds the same')
      t.same(await urls('é'), await urls('café'), 'a term of one character')
      t.same(await urls('中文'), ['http://localhost/%E4%B8%AD%E6%96%87?q=%F0%9F%98%80'])
      t.same(await urls('😀'), ['http://localhost/%E4%B8%AD%E6%96%87?q=%F0%9F%98%80'], 'a character outside the BMP, in the query')
      t.same(await urls('cafe'), ['http://localhost/cafe/menu'], 'é is not e')
      t.notOk((await urls('!café')).some(url => url.includes('caf%C3%A9')), 'the negation leaves them out')
    })

    t.test('generated target bytes: any non-ASCII byte is listed as %XX, never as a character', async t => {
      const { app, address } = await listeningApp(t, await engine.fresh(t))
      const visible = fc.constantFrom(...'/abcXYZ019-._~!$&\'()*+,;=:@'.split('')).map(c => c.charCodeAt(0))
      const high = fc.integer({ min: 0x80, max: 0xff })
      const target = fc.tuple(fc.array(fc.oneof(visible, high), { maxLength: 12 }), high, fc.array(fc.oneof(visible, high), { maxLength: 12 }))
        .map(([before, one, after]) => Buffer.from([0x2f, ...before, one, ...after]))
      const sent: Array<{ token: string, expected: string }> = []
      await fc.assert(fc.asyncProperty(target, async bytes => {
        const answer = await rawAnswer(address, rawGet(bytes))
        if (answer.status !== 400) throw new Error(`answered ${answer.status}`)
        sent.push({ token: answer.headers['x-debug-token'] ?? '', expected: `http://localhost${encoded(bytes)}` })
      }), { numRuns: 40, seed: 3707 })
      const listed = new Map((await listProfiles(app, 'limit=100')).map(p => [p.token, p.url]))
      t.same(sent.map(({ token }) => listed.get(token)), sent.map(({ expected }) => expected), `${sent.length} targets, each listed encoded`)
    })

    t.test('escapes in any hex case, ASCII a client chose to encode, bytes that are no UTF-8: found by the decoded term, listed as sent', async t => {
      const { app } = await listeningApp(t, await engine.fresh(t))
      for (const url of ['/caf%c3%a9/lower', '/caf%C3%A9/upper', '/caf%C3%a9/mixed', '/%61dmin/panel', '/x%ffy%C3/bad', '/pct%2541', '/plain/A']) await app.inject({ url })
      const urls = async (term: string, more = ''): Promise<string[]> =>
        (await listProfiles(app, `url=${encodeURIComponent(term)}${more}`)).map(p => p.url.replace('http://localhost', '')).sort()
      const cafes = ['/caf%C3%A9/upper', '/caf%C3%a9/mixed', '/caf%c3%a9/lower']
      t.same(await urls('café'), cafes, 'café finds each spelling, listed as sent')
      t.same(await urls('caf%C3%A9'), cafes, 'the term written encoded, upper-case')
      t.same(await urls('caf%c3%a9'), cafes, 'the term written encoded, lower-case')
      t.same(await urls('é'), cafes, 'a term shorter than a trigram (read newest first, no index)')
      t.same(await urls('admin'), ['/%61dmin/panel'], 'ASCII the client encoded')
      t.same(await urls('%61dmin'), ['/%61dmin/panel'], 'and the term as the client wrote it')
      t.same(await urls('x%FFy%C3'), ['/x%ffy%C3/bad'], 'bytes that are no UTF-8: by their upper-case escapes')
      t.same(await urls('x%ffy'), ['/x%ffy%C3/bad'], 'or lower-case ones')
      t.same(await urls('%2541'), ['/pct%2541'], 'an escaped % stays escaped: %2541 is not %41')
      t.same(await urls('/pctA'), [], 'nor A')
      const negated = await urls('!café', '&limit=100')
      t.same(negated, ['/%61dmin/panel', '/pct%2541', '/plain/A', '/x%ffy%C3/bad'], 'the negation leaves out every spelling')
      t.same(await urls('!admin', '&limit=100'), [...cafes, '/pct%2541', '/plain/A', '/x%ffy%C3/bad'].sort())
      t.same(await urls('!%61dmin', '&limit=100'), await urls('!admin', '&limit=100'), 'the negated term written encoded')

      // More matching URLs than either engine looks up one by one: read newest first, the same answer.
      for (let i = 0; i < 110; i++) await app.inject({ url: `/many%c3%a9/${i}` })
      t.same((await listProfiles(app, `url=${encodeURIComponent('manyé')}&limit=3`)).map(p => p.url), ['/many%c3%a9/109', '/many%c3%a9/108', '/many%c3%a9/107'].map(path => `http://localhost${path}`))
    })

    t.test('generated paths, escaped in random hex case with random ASCII escaped too: the decoded term finds each, its negation leaves it out', async t => {
      const { app } = await listeningApp(t, await engine.fresh(t))
      // Characters that may stand unescaped in a path; every other one (non-ASCII, %, ?, #, space, controls) is escaped.
      // 1 to 12 of any code points (anyText: fc.string's 'binary' unit costs ~1.1 s of CPU a process to set up).
      const plain = /^[A-Za-z0-9\-._~!$&'()*+,;=:@/]$/
      const path = fc.tuple(anyText(12).filter(text => text !== ''), fc.infiniteStream(fc.boolean()), fc.infiniteStream(fc.boolean()))
        .map(([text, escapeIt, upper]) => ({
          text,
          sent: [...text].map(char => plain.test(char) && !escapeIt.next().value ? char : escape(char, () => upper.next().value as boolean)).join('')
        }))
      let n = 0
      await fc.assert(fc.asyncProperty(path, async ({ text, sent }) => {
        const url = `/gen${n++}/${sent}`
        await app.inject({ url })
        // The decoded term: a % (and an ASCII control character) written escaped, as search forms keep them,
        // and a leading ! too (else it negates).
        const term = [...text].map((char, i) => char === '%' || isControl(char) || (i === 0 && char === '!') ? escape(char, () => true) : char).join('')
        const found = (await listProfiles(app, `url=${encodeURIComponent(term)}&limit=100`)).map(p => p.url)
        if (!found.includes(`http://localhost${url}`)) throw new Error(`${JSON.stringify(term)} did not find ${url} (found ${JSON.stringify(found)})`)
        const negated = (await listProfiles(app, `url=!${encodeURIComponent(term)}&limit=100`)).map(p => p.url)
        if (negated.includes(`http://localhost${url}`)) throw new Error(`!${JSON.stringify(term)} found ${url}`)
      }), { numRuns: 40, seed: 3708 })
      t.pass('40 generated paths found by their decoded term')
    })

    t.test('a URL stored before the search form (migration 011 / 012) is found by the decoded term once a new request to it is stored', async t => {
      const store = await engine.fresh(t)
      const first = await buildTestApp(t, store)
      for (const url of ['/old%c3%a9/x', '/plain/old']) await first.inject({ url })
      await first.profileStore.flush()
      await first.close()
      // The row as the code before the migration left it: no form, the index holding the URL as sent.
      await onStore(store, 'UPDATE profile_urls SET search_url = NULL')
      t.same(await onStore(store, 'SELECT url FROM profile_urls WHERE search_url IS NOT NULL'), [], 'no URL has a form')
      const app = await buildTestApp(t, store)
      t.same((await listProfiles(app, `url=${encodeURIComponent('oldé')}`)).map(p => p.url), [], 'searched as sent until then')
      await app.inject({ url: '/old%c3%a9/x' })
      t.same((await listProfiles(app, `url=${encodeURIComponent('oldé')}`)).map(p => p.url), ['http://localhost/old%c3%a9/x', 'http://localhost/old%c3%a9/x'], 'both profiles, the older one too')
      t.same(await onStore(store, 'SELECT search_url FROM profile_urls WHERE search_url IS NOT NULL'), [{ search_url: 'http://localhost/oldé/x' }], 'a form kept only where it differs from the URL')
    })
  })
}
