// run-suite: shares a process
import fc from 'fast-check'
import t from 'tap'
import { withoutPreloads } from '../../plugins/profiler/thread-preloads.js'

t.test('the preloads go, with their values; every other option stays, in order', async t => {
  t.same(withoutPreloads(['--enable-source-maps', '--import=./otel.mjs', '--require', 'x.cjs', '-r', 'y', '--max-old-space-size=256', '--loader=l', '--experimental-loader', 'm']),
    ['--enable-source-maps', '--max-old-space-size=256'])
  t.same(withoutPreloads(['--import', '"/a b/otel.mjs"', '--inspect=0']), ['--inspect=0'], 'a quoted value of NODE_OPTIONS')
  t.same(withoutPreloads(['--importance=1', '--required']), ['--importance=1', '--required'], 'only those options, not their prefixes')
  const other = fc.stringMatching(/^--[a-z-]{1,20}(?:=[a-z0-9]{1,8})?$/).filter(option => !/^--(?:import|require|loader|experimental-loader)(?:=|$)/.test(option))
  const preload = fc.tuple(fc.constantFrom('--import', '--require', '-r', '--loader', '--experimental-loader'), fc.stringMatching(/^[a-z./@-]{1,20}$/), fc.boolean())
    .map(([option, value, joined]) => joined ? [`${option}=${value}`] : [option, value])
  fc.assert(fc.property(fc.array(fc.oneof(other.map(option => [option]), preload), { maxLength: 12 }), words => {
    const kept = words.filter(word => word.length === 1 && !/^(?:--import|--require|-r|--loader|--experimental-loader)=/.test(word[0] ?? '')).flat()
    return JSON.stringify(withoutPreloads(words.flat())) === JSON.stringify(kept)
  }), { numRuns: 300, seed: 3902 })
})
