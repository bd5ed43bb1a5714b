// run-suite: shares a process
// The profiler's threads (the writer's, SQLite's reader's) load no TypeBox: loading it was about
// 0.13 s of CPU of a thread's start, ~0.25 s of each server's (two threads), and nothing in a
// thread validates (panels/panel-schemas.ts holds the panels' schemas apart from their code). Read
// from the compiled modules, as a thread loads them (test/runner/packages-reached.ts: the dynamic
// imports of a literal path too, as PostgreSQL's writer's), followed from each thread's module.
import { join } from 'node:path'
import t from 'tap'
import { packageRoot } from '../../paths.js'
import { loadsTypebox, packagesReached } from '../runner/packages-reached.js'

const THREADS = {
  writer: 'plugins/profiler/writer/writer-worker.js',
  'SQLite reader': 'plugins/profiler/engine/sqlite/reader-worker.js'
}

for (const [thread, entry] of Object.entries(THREADS)) {
  t.test(`the ${thread} thread's modules import no TypeBox`, async t => {
    const reached = packagesReached([entry], join(packageRoot, 'dist'))
    // The walk itself: a thread's modules reach its store's driver.
    t.ok(reached.has('better-sqlite3'), 'better-sqlite3 is reached')
    const typebox = [...reached].filter(([name]) => loadsTypebox(name))
    t.same(typebox.map(([name, chain]) => `${name} <- ${chain.reverse().join(' <- ')}`), [], 'TypeBox is not reached')
  })
}
