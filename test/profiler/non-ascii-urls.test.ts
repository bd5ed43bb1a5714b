// Non-ASCII URLs (issue 37, item 7) on both store engines: a decoded term finds the URL it names
// (`url=café` finds `/caf%C3%A9`), through the same indexes; a raw target that is not ASCII, which
// Node's parser refuses (valid UTF-8 or not), is stored and listed percent-encoded, never as
// mojibake (`/cafÃ©`), and found by the decoded term too.
import fc from 'fast-check'
import t from 'tap'
import { listeningApp } from '../helpers/app.js'
import { listProfiles } from '../helpers/profiler.js'
import { rawAnswer } from '../helpers/raw-http.js'
import { storeEngines } from '../helpers/store-engines.js'

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
  })
}
