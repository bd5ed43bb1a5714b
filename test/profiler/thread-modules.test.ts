// run-suite: shares a process
// The profiler's threads (the writer's, SQLite's reader's) load no TypeBox: loading it was about
// 0.13 s of CPU of a thread's start, ~0.25 s of each server's (two threads), and nothing in a
// thread validates (panels/panel-schemas.ts holds the panels' schemas apart from their code). Read
// from the compiled modules, as a thread loads them: every static import and export, and the
// dynamic imports of a literal path (PostgreSQL's writer), followed from each thread's module.
import { readFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import t from 'tap'
import { packageRoot } from '../../paths.js'

const THREADS = {
  writer: 'plugins/profiler/writer/writer-worker.js',
  'SQLite reader': 'plugins/profiler/engine/sqlite/reader-worker.js'
}

/** `import ... from 'x'`, `export ... from 'x'`, `import 'x'` and `import('x')`, as tsc writes them. */
const SPECIFIERS = /(?:^|;)\s*(?:import|export)\s(?:[^'";]*?\sfrom\s*)?['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)/gm

/** The packages a compiled module's imports reach (by name), each with the chain of modules that leads to it. */
function packagesReached (entry: string): Map<string, string[]> {
  const dist = join(packageRoot, 'dist')
  const reached = new Map<string, string[]>()
  const seen = new Set<string>()
  const walk = (file: string, chain: string[]): void => {
    if (seen.has(file)) return
    seen.add(file)
    const path = [...chain, file.slice(dist.length + 1)]
    for (const [, staticSpecifier, dynamicSpecifier] of readFileSync(file, 'utf8').matchAll(SPECIFIERS)) {
      const specifier = staticSpecifier ?? dynamicSpecifier ?? ''
      if (specifier.startsWith('.')) walk(resolve(dirname(file), specifier), path)
      else if (!reached.has(specifier)) reached.set(specifier, path)
    }
  }
  walk(join(dist, entry), [])
  return reached
}

for (const [thread, entry] of Object.entries(THREADS)) {
  t.test(`the ${thread} thread's modules import no TypeBox`, async t => {
    const reached = packagesReached(entry)
    // The walk itself: a thread's modules reach its store's driver.
    t.ok(reached.has('better-sqlite3'), 'better-sqlite3 is reached')
    const typebox = [...reached].filter(([name]) => name === 'typebox' || name.startsWith('typebox/'))
    t.same(typebox.map(([name, chain]) => `${name} <- ${chain.reverse().join(' <- ')}`), [], 'TypeBox is not reached')
  })
}
