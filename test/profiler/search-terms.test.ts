// run-suite: shares a process
// Search terms and bounds that once broke a store, on both engines and through every way in: the
// listing (JSON and HTML), the search redirect, the search's HAR, the command line and the MCP tool.
// A URL term is a literal substring of the URL's search form (escapes decoded) whatever it holds (a
// NUL included); a time bound that denotes no instant is a 400 naming its parameter.
import fc from 'fast-check'
import type { FastifyInstance } from 'fastify'
import t, { type Test } from 'tap'
import { urlSearchForm } from '../../plugins/profiler/engine/url-search-form.js'
import { parseSearchFilters } from '../../plugins/profiler/query/search-filters.js'
import { buildTestApp } from '../helpers/app.js'
import { anyText } from '../helpers/hostile.js'
import { call, json, mcpClientInProcess } from '../helpers/mcp-client.js'
import { listProfiles } from '../helpers/profiler.js'
import { profiler, profilerBin } from '../helpers/profiler-cli.js'
import { storeEngines } from '../helpers/store-engines.js'

const JSON_ACCEPT = { accept: 'application/json' }
/** Recorded URLs with escapes, a NUL written as %00, non-ASCII and a query. */
const PATHS = ['/abc', '/abc%00', '/abc%00def', '/caf%C3%A9/%E2%82%AC', '/monitor/MonitorPooling', '/a%20b?x=1&y=%00&z=%F0%9F%98%80', '/robots.txt', '/%5Bx%5D/abc/abc']

/** An app on `store` that recorded a request to each of PATHS. */
async function recorded (t: Test, store: Record<string, string>): Promise<FastifyInstance> {
  const app = await buildTestApp(t, store)
  for (const url of PATHS) await app.inject({ url })
  await app.profileStore.flush()
  return app
}

/** What every search route answers for `query`: the listing's JSON and HTML, the redirect and the HAR. */
async function everyRoute (app: FastifyInstance, query: string) {
  const listing = await app.inject({ url: `/_profiler/empty/search/results?${query}`, headers: JSON_ACCEPT })
  const page = await app.inject({ url: `/_profiler/empty/search/results?${query}` })
  const redirect = await app.inject({ url: `/_profiler/search?${query}` })
  const har = await app.inject({ url: `/_profiler/empty/search/har?${query}` })
  return { listing, page, redirect, har }
}

const engines = storeEngines(t)
t.jobs = 2
for (const engine of engines) {
  t.test(engine.name, { skip: engine.skip, buffered: true }, async t => {
    t.test('a URL term with a NUL is a substring like any other: no recorded URL holds one (a %00 stays three characters)', async t => {
      const store = await engine.fresh(t)
      const app = await recorded(t, store)
      const all = await listProfiles(app)
      const client = await mcpClientInProcess(t, store)
      for (const term of ['abc\0', 'abc\0def', '\0abc', 'a\0b\0c', '\0', 'MonitorPooling\0']) {
        const query = `url=${encodeURIComponent(term)}`
        const { listing, page, redirect, har } = await everyRoute(app, query)
        t.equal(listing.statusCode, 200, query)
        t.same(listing.json().results, [], `${query}: no URL`)
        t.equal(page.statusCode, 200)
        t.match(page.body, 'No results found')
        t.equal(redirect.statusCode, 302)
        t.match(redirect.headers.location, /^\/_profiler\/empty\/search\/results\?/, 'the redirect finds no newest match')
        t.equal(har.statusCode, 200, `${query}: the HAR`)
        t.same(har.json().log.entries, [], 'the HAR holds no entry')
        const negated = await listProfiles(app, `url=${encodeURIComponent(`!${term}`)}&limit=100`)
        t.same(negated, all, `!${JSON.stringify(term)}: every URL`)
        t.same(await json(client, 'search_profiles', { url: term }), { results: [] }, 'the MCP tool')
        const cli = await profiler(['search', '--json', '--url', term], store)
        t.same({ code: cli.code, stderr: cli.stderr, results: JSON.parse(cli.stdout || '{}').results }, { code: 0, stderr: '', results: [] }, 'the command line')
      }
      t.same((await listProfiles(app, 'url=abc%2500')).map(p => p.url), ['http://localhost/abc%00def', 'http://localhost/abc%00'], 'the escape is found as written')
    })

    t.test('generated URL terms (any code point, NUL included, negated or not): the listing holds exactly the recorded URLs that hold the term, both in search form', async t => {
      const app = await recorded(t, await engine.fresh(t))
      const all = await listProfiles(app)
      t.equal(all.length, PATHS.length)
      // Pieces of the recorded URLs (to find), any text, and NULs between them.
      const piece = fc.oneof(
        fc.tuple(fc.constantFrom(...all.map(p => p.url)), fc.nat(), fc.nat({ max: 12 })).map(([url, at, length]) => url.slice(at % url.length, at % url.length + length)),
        anyText(6),
        fc.constantFrom('\0', '%00', 'abc', 'é', '😀')
      )
      const term = fc.tuple(fc.boolean(), fc.array(piece, { minLength: 1, maxLength: 3 })).map(([negated, pieces]) => `${negated ? '!' : ''}${pieces.join('')}`)
      await fc.assert(fc.asyncProperty(term, async value => {
        // The page's own reading of the value (trimmed, a leading ! negates) decides what it asks for;
        // the term and each URL are compared in their search form (escapes decoded: docs/profiler.md).
        const { url, urlNegated } = parseSearchFilters({ url: value })
        const expected = all.filter(p => url === undefined || urlSearchForm(p.url).includes(urlSearchForm(url)) !== (urlNegated === true))
        const res = await app.inject({ url: `/_profiler/empty/search/results?limit=100&url=${encodeURIComponent(value)}`, headers: JSON_ACCEPT })
        if (res.statusCode !== 200) t.fail(`${JSON.stringify(value)}: ${res.body}`)
        return res.statusCode === 200 && JSON.stringify(res.json().results) === JSON.stringify(expected)
      }), { numRuns: 150, seed: 2101 })
    })

    t.test('a time bound that denotes no instant is a 400 naming its parameter, everywhere; real instants at the edges are answered', async t => {
      const store = await engine.fresh(t)
      const app = await recorded(t, store)
      const client = await mcpClientInProcess(t, store)
      const expected = 'a date (YYYY-MM-DD) or a date-time (YYYY-MM-DDTHH:MM[:SS][Z|±HH:MM])'
      for (const [i, [name, value, option, argument]] of ([
        ['start', '2026-01-01T00:00+99:99', '--from', 'from'],
        ['end', '2026-01-01T00:00-24:00', '--until', 'until'],
        ['start', '2026-01-01T10:30:15.5+0960', '--from', 'from']
      ] as const).entries()) {
        const routes = await everyRoute(app, `${name}=${encodeURIComponent(value)}`)
        for (const [route, res] of Object.entries(routes)) {
          t.equal(res.statusCode, 400, `${route} ${name}=${value}`)
          t.ok(res.body.includes(`Invalid \\"${name}\\" parameter`) || res.body.includes(`Invalid &quot;${name}&quot; parameter`), `${route}: the message names "${name}"`)
        }
        t.same(await call(client, 'search_profiles', { [argument]: value }), { isError: true, text: `Invalid "${argument}" parameter "${value}": expected ${expected}` }, 'the MCP tool')
        // The first through the built bin, the others through the same program in-process.
        const cli = await (i === 0 ? profilerBin : profiler)(['search', option, value], store)
        t.same(cli, { code: 2, stdout: '', stderr: `profiler: Invalid "${option}" parameter "${value}": expected ${expected}\n` }, `the command line (${i === 0 ? 'the built bin' : 'in-process'})`)
      }
      for (const query of ['start=2026-01-01T00:00-23:59', 'end=2026-01-01T00:00%2B23:59', 'start=0000-01-01', 'end=9999-12-31', 'start=999999999999', 'end=9999-12-31T23:59:59.999-23:59']) {
        const { listing } = await everyRoute(app, query)
        t.equal(listing.statusCode, 200, query)
      }
      t.same(await listProfiles(app, 'end=9999-12-31&start=0000-01-01&limit=100'), await listProfiles(app), 'the widest range holds every profile')
    })
  })
}
