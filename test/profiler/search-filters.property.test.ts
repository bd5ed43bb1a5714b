// Properties of the search filters on generated hostile values: every value of every parameter is
// either accepted (a time bound then a real instant) or refused with a 400 that names that
// parameter, never a 5xx; a date-time's offset is honoured or refused; the listing, the
// search redirect and the HTML page (template helpers included) answer for all of them.
import fc from 'fast-check'
import t from 'tap'
import { parseSearchFilters, SEARCH_PARAMETERS } from '../../plugins/profiler/query/search-filters.js'
import { buildTestApp } from '../helpers/app.js'
import { hostileText } from '../helpers/hostile.js'

const parameter = fc.constantFrom(...SEARCH_PARAMETERS)

t.test('parseSearchFilters: a value is accepted, or refused with a 400 naming its parameter; an accepted time bound is an instant', async t => {
  fc.assert(fc.property(parameter, hostileText(300), (name, value) => {
    try {
      const filters = parseSearchFilters({ [name]: value })
      return [filters.start, filters.end].every(bound => bound === undefined || Number.isFinite(bound))
    } catch (err) {
      const error = err as Error & { statusCode?: number }
      return error.statusCode === 400 && error.message.startsWith(`Invalid "${name}" parameter `)
    }
  }), { numRuns: 1000, seed: 8001 })
  t.pass('1,000 generated values')
})

t.test('a date-time bound with any offset: ±00:00 to ±23:59 is that instant, any other a 400 naming the bound', async t => {
  const twoDigits = fc.integer({ min: 0, max: 99 }).map(n => String(n).padStart(2, '0'))
  const bound = fc.record({
    name: fc.constantFrom('start' as const, 'end' as const),
    sign: fc.constantFrom('+', '-'),
    hours: twoDigits,
    minutes: twoDigits,
    colon: fc.boolean()
  })
  fc.assert(fc.property(bound, ({ name, sign, hours, minutes, colon }) => {
    const value = `2026-03-01T12:34${sign}${hours}${colon ? ':' : ''}${minutes}`
    const real = Number(hours) <= 23 && Number(minutes) <= 59
    try {
      const filters = parseSearchFilters({ [name]: value })
      // 12:34 at that offset is 12:34 UTC minus the offset; an end covers its whole minute.
      const instant = Date.UTC(2026, 2, 1, 12, 34) - (sign === '+' ? 1 : -1) * (Number(hours) * 60 + Number(minutes)) * 60_000
      return real && filters[name] === (name === 'start' ? instant : instant + 59_999)
    } catch (err) {
      const error = err as Error & { statusCode?: number }
      return !real && error.statusCode === 400 && error.message.startsWith(`Invalid "${name}" parameter "${value}"`)
    }
  }), { numRuns: 1000, seed: 2102 })
  t.pass('1,000 generated offsets')
})

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
