// run-suite: shares a process
// The search filters on generated hostile values, through the pages: the listing, the search
// redirect and the HTML page (template helpers included) answer for all of them, never a 5xx, the
// markup escaped. The parser's own properties: test/unit/search-filters.property.test.ts.
import fc from 'fast-check'
import t from 'tap'
import { SEARCH_PARAMETERS } from '../../plugins/profiler/query/search-filters.js'
import { buildTestApp } from '../helpers/app.js'
import { hostileText } from '../helpers/hostile.js'

const parameter = fc.constantFrom(...SEARCH_PARAMETERS)

t.test('the listing (JSON and HTML) and the search redirect answer every generated query without a 5xx; markup in it is escaped', async t => {
  const app = await buildTestApp(t)
  await app.inject({ url: '/robots.txt' })
  await app.profileStore.flush()
  const MARKUP = '<i id="injected">x</i>'
  // Any text, within what the schema accepts for each parameter (longer values are a 400 of their own).
  const query = fc.dictionary(parameter, hostileText(20, 3).map(text => text + MARKUP), { maxKeys: 4 })
  await fc.assert(fc.asyncProperty(query, fc.constantFrom('application/json', 'text/html'), async (values, accept) => {
    const search = new URLSearchParams(values).toString()
    const listing = await app.inject({ url: `/_profiler/empty/search/results?${search}`, headers: { accept } })
    const redirect = await app.inject({ url: `/_profiler/search?${search}` })
    if (listing.statusCode >= 500 || redirect.statusCode >= 500) return false
    // The page (or its 400) shows the query escaped, whatever surrounds the markup.
    return accept !== 'text/html' || !listing.body.includes(MARKUP)
  }), { numRuns: 200, seed: 8002 })
  t.pass('200 generated queries')
})
