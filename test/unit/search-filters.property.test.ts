// run-suite: shares a process
// Properties of the search filters' parser on generated hostile values: every value of every
// parameter is either accepted (a time bound then a real instant) or refused with a 400 that names
// that parameter; a date-time's offset is honoured or refused. The pages' side of the same
// values: test/profiler/search-filters.property.test.ts.
import fc from 'fast-check'
import t from 'tap'
import { parseSearchFilters, SEARCH_PARAMETERS } from '../../plugins/profiler/query/search-filters.js'
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
