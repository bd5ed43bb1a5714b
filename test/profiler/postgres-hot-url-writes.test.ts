// run-suite: shares a process
// A URL or IP seen in every batch has its PostgreSQL row written at most twice in ten seconds (issue
// 38): its newest-profile bound (last_id) is raised to the end of the ten seconds of ids its newer
// profile is in, not to each batch's newest id. Raised every batch, the row was rewritten every batch,
// with new entries in each of its indexes (last_id is indexed: no HOT update), its trigrams' among them.
// Each batch commits on its own, so each write of the row gives it a new xmin: read after every batch.
import t from 'tap'
import pg from 'pg'
import { openStoreWriter } from '../../plugins/profiler/engine/open-writer.js'
import { monitorProfile } from '../helpers/monitor-profile.js'
import { needsPostgres, startPostgres } from '../helpers/postgres.js'

const HOT_URL = 'http://localhost/monitor/MonitorPooling'
const HOT_IP = '10.1.2.3'
/** Batches after the one that first stores the URL and IP, their hot profiles 250 ms of ids apart: 9,750 ms of ids in all, under ten seconds. */
const BATCHES = 39
const STEP_MS = 250

if (needsPostgres(t)) {
  t.test(`a URL and an IP in each of ${BATCHES} batches over 10 s of ids: each row written at most twice, its last_id still above every id`, async t => {
    const cluster = await startPostgres(t)
    const url = await cluster.createStore('hot_url')
    const limits = { maxProfiles: 100_000, maxAgeMs: 86_400_000, maxBytes: 256 * 1024 * 1024, statsMaxAgeMs: 30 * 86_400_000 }
    const writer = await openStoreWriter({ engine: 'postgres', url }, 'A', limits, 3_600_000, { onDeleted: () => {}, onError: () => {}, onTaken: () => {}, onBound: () => {} })
    const reader = new pg.Client({ connectionString: url })
    await reader.connect()
    t.teardown(async () => {
      await reader.end()
      await writer.close()
    })
    const startMs = Date.now()
    // A profile of the hot URL and IP, `ms` after the first; its neighbour in the batch is a URL of its own.
    const batchAt = (ms: number, n: number): Parameters<typeof writer.write>[0] => [
      { ...monitorProfile(2 * n, startMs + ms - 2 * n, 'h', '{}'), url: HOT_URL, ip: HOT_IP },
      monitorProfile(2 * n + 1, startMs + ms - 2 * n, 'h', '{}')
    ]
    const versions = async (): Promise<{ url: string, ip: string, urlLast: number, ipLast: number }> => {
      const { rows } = await reader.query<{ url: string, ip: string, url_last: string, ip_last: string }>(`SELECT u.xmin::text AS url, i.xmin::text AS ip,
        u.last_id::text AS url_last, i.last_id::text AS ip_last FROM profile_urls u, profile_ips i WHERE u.url = $1 AND i.ip = $2`, [HOT_URL, HOT_IP])
      const row = rows[0]
      if (row === undefined) throw new Error('the hot URL or IP has no row')
      return { url: row.url, ip: row.ip, urlLast: Number(row.url_last), ipLast: Number(row.ip_last) }
    }
    await writer.write(batchAt(0, 0))
    let last = await versions()
    let urlWrites = 0
    let ipWrites = 0
    let belowNewest = 0
    for (let i = 1; i <= BATCHES; i++) {
      const batch = batchAt(i * STEP_MS, i)
      await writer.write(batch)
      const now = await versions()
      if (now.url !== last.url) urlWrites++
      if (now.ip !== last.ip) ipWrites++
      // A bound from above: the reader reads the partitions up to it, the sweep keeps the row while the horizon is below it.
      const newest = batch[0]?.id ?? 0
      if (now.urlLast < newest || now.ipLast < newest) belowNewest++
      last = now
    }
    t.ok(urlWrites <= 2, `the hot URL's row written ${urlWrites} times in ${BATCHES} batches (at most twice)`)
    t.ok(ipWrites <= 2, `the hot IP's row written ${ipWrites} times in ${BATCHES} batches (at most twice)`)
    t.equal(belowNewest, 0, 'the rows\' last_id never below the newest profile written')
  })
}
