// The preload flags kept from the writer thread: every spelling Node accepts is dropped with its
// value, everything else is kept in order.
import fc from 'fast-check'
import t from 'tap'
import { nodeOptionsWithoutPreloads, withoutPreloads } from '../../lib/preload-flags.js'

t.test('each preload flag goes with its value, in both spellings; other arguments stay in order', async t => {
  t.same(withoutPreloads(['--enable-source-maps', '--import', './a.mjs', '--max-old-space-size=64', '--import=./b.mjs']), ['--enable-source-maps', '--max-old-space-size=64'])
  t.same(withoutPreloads(['-r', 'x', '--require=y', '--loader', 'l', '--experimental-loader=m', '--no-warnings']), ['--no-warnings'])
  t.same(withoutPreloads(['--inspect=0', '--imports-are-not-a-flag']), ['--inspect=0', '--imports-are-not-a-flag'])
  t.same(withoutPreloads([]), [])
})

t.test('NODE_OPTIONS is split as Node splits it: quoted values with spaces stay one word', async t => {
  t.equal(nodeOptionsWithoutPreloads('"--import=file:///a b/import.mjs" --enable-source-maps'), '--enable-source-maps')
  t.equal(nodeOptionsWithoutPreloads('--require "./with space.cjs" --stack-trace-limit=50'), '--stack-trace-limit=50')
  t.equal(nodeOptionsWithoutPreloads('--title="a \\"quoted\\" name"  --import x'), '--title="a \\"quoted\\" name"')
  t.equal(nodeOptionsWithoutPreloads(''), '')
})

t.test('property: whatever is kept is no preload flag, and every other word survives in order', async t => {
  const flag = fc.constantFrom('--import', '--require', '-r', '--loader', '--experimental-loader')
  const other = fc.stringMatching(/^--[a-z][a-z-]{0,12}(=[a-z0-9./]{1,8})?$/).filter(word => !/^(--import|--require|--loader|--experimental-loader)(=|$)/.test(word))
  const item = fc.oneof(
    fc.record({ kind: fc.constant('preload' as const), words: fc.tuple(flag, fc.stringMatching(/^[a-z0-9./]{1,8}$/)).map(([f, v]) => [f, v]) }),
    fc.record({ kind: fc.constant('preload' as const), words: fc.tuple(flag, fc.stringMatching(/^[a-z0-9./]{1,8}$/)).map(([f, v]) => [`${f}=${v}`]) }),
    fc.record({ kind: fc.constant('other' as const), words: other.map(word => [word]) })
  )
  fc.assert(fc.property(fc.array(item, { maxLength: 12 }), items => {
    const args = items.flatMap(i => i.words)
    const expected = items.filter(i => i.kind === 'other').flatMap(i => i.words)
    return JSON.stringify(withoutPreloads(args)) === JSON.stringify(expected) &&
      nodeOptionsWithoutPreloads(args.join(' ')) === expected.join(' ')
  }), { numRuns: 300 })
  t.pass('300 generated argument lists')
})
