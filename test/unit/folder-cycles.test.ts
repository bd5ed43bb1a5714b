// run-suite: shares a process
// No folder-level import cycle inside the profiler (issue 41), checked on its source: each folder
// of plugins/profiler/ (subfolders merged), the top level's files but the door (index.ts) as one
// node; and inside each folder, its subfolders among themselves. docs/architecture.md draws the graph.
import { join } from 'node:path'
import t from 'tap'
import { packageRoot } from '../../paths.js'
import { folderCycles, folderGraph, readTree, subfolderOf, topLevelFolder } from '../helpers/folder-cycles.js'

const profiler = readTree(join(packageRoot, 'plugins/profiler'))

t.test('the profiler\'s folders import one another without a cycle', async t => {
  t.ok(profiler.size > 100, 'the profiler\'s source was read')
  t.same(folderCycles(folderGraph(profiler, topLevelFolder)), [])
})

t.test('inside each folder, its subfolders import one another without a cycle', async t => {
  const folders = new Set([...profiler.keys()].map(path => path.split('/')).filter(parts => parts.length > 2).map(parts => parts[0] ?? ''))
  t.ok(folders.has('panels') && folders.has('engine'), 'panels/ and engine/ have subfolders')
  for (const folder of folders) t.same(folderCycles(folderGraph(profiler, subfolderOf(folder))), [], folder)
})

t.test('a planted cycle is found, type-only imports and re-exports included; the door is left out', async t => {
  const planted = new Map([
    ['index.ts', "import { a } from './a/a.js'\nimport { c } from './c/c.js'"],
    ['shared.ts', "import { b } from './b/b.js'"],
    ['a/a.ts', "import type { B } from '../b/b.js'\nexport const a = 1"],
    ['b/b.ts', "export { c } from '../c/c.js'"],
    ['c/c.ts', "import { index } from '../index.js'\nimport { a } from '../a/a.js'"],
    ['d/x/x.ts', "import { y } from '../y/y.js'"],
    ['d/y/y.ts', "import { x } from '../x/x.js'\nimport { d } from '../d.js'"],
    ['d/d.ts', "import { x } from './x/x.js'"]
  ])
  const cycles = folderCycles(folderGraph(planted, topLevelFolder))
  t.equal(cycles.length, 1, 'one cycle: a/, b/, c/ (index.ts imports c/ and is imported by it, yet makes none)')
  t.match(cycles[0], /^a\/ -> b\/ -> c\/ -> a\/ \(of a\/ b\/ c\/\)\n {2}a\/ -> b\/: a\/a\.ts -> b\/b\.ts\n/)
  t.same(folderCycles(folderGraph(planted, subfolderOf('d'))).map(cycle => cycle.split('\n')[0]), ['d/x/ -> d/y/ -> d/x/ (of d/x/ d/y/)'])
})
