// run-suite: shares a process
// The SQLite writer measures the statistics' bytes again (dbstat: every page of their b-trees)
// after 1,000 rollup rows were added: what it counts toward that is the rows it inserted, not every
// update of a row (a busy route adds to the same two rows all minute long).
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { openProfileDatabase } from '../../plugins/profiler/engine/sqlite/open-database.js'
import { SqliteProfileWriter } from '../../plugins/profiler/engine/sqlite/profile-writer.js'

t.test('requests of one route in one minute add two rollup rows, however many batches they come in', async t => {
  const dir = mkdtempSync(join(tmpdir(), 'statistics-measure-'))
  const { db } = openProfileDatabase(join(dir, 'profiler.sqlite'))
  t.teardown(() => {
    db.close()
    rmSync(dir, { recursive: true, force: true })
  })
  const writer = new SqliteProfileWriter(db, () => {}, 'A')
  const minuteMs = Math.floor(Date.now() / 60_000) * 60_000
  for (let i = 0; i < 1500; i++) {
    writer.write([], [{ startMs: minuteMs + (i % 60_000), method: 'GET', route: '/busy', statusCode: 200, durationMs: i % 97 }])
  }
  t.equal(writer.rollupRowsInserted, 2, 'a minute row and an hour row inserted; 2,998 updates counted as none')
  writer.write([], [{ startMs: minuteMs, method: 'GET', route: '/other', statusCode: 200, durationMs: 1 }])
  t.equal(writer.rollupRowsInserted, 4, "another route's rows are counted")
})
