import { hostname } from 'node:os'
import type { Database } from 'better-sqlite3'
import { ID_SLOTS_PER_MS, type ProfileRecord } from '../../profile.js'
import { ROW_COUNT_COLUMNS, rowCountValues } from '../../row-counts.js'
import type { StatisticsStamp, WriteResult } from '../contract.js'
import type { MissingWindow } from '../../stats/missing.js'
import { STATISTICS_TABLES, statisticsCoarsening } from '../retention-policy.js'
import { storedSearchForm } from '../url-search-form.js'
import { encodePanelsBlock } from './panels-block.js'
import { HOUR_MS, MINUTE_MS, countedRequest, countedStatisticsOnly, expiredRollups, rollupDeltas, toStoredValues, type CountedRequest, type StatisticsOnly } from '../../stats/rollup.js'
import { addEncodedHistograms } from '../../stats/histogram.js'

/** A profile's panel bytes on disk (`p` its row, `b` its block, `d` its profile_data row from before blocks). */
const STORED_PANEL_BYTES = 'coalesce(octet_length(b.panels) * p.block_bytes / nullif(b.raw_bytes, 0), octet_length(d.panels), 0)'

/** Recently used URL ids and IPs kept in memory, so that repeated URLs cost no lookup. */
const CACHE_SIZE = 5_000

function prepareWriteStatements (db: Database) {
  return {
    insertProfile: db.prepare(`
      INSERT INTO profiles (id, token, parent_token, type, ip, method, url, url_id, status_code, duration_ms, route, deployment,
        ${ROW_COUNT_COLUMNS.join(', ')}, trace_id, block_id, block_at, block_bytes)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ${ROW_COUNT_COLUMNS.map(() => '?').join(', ')}, ?, ?, ?, ?)
      ON CONFLICT DO NOTHING`),
    // The panels of a batch's profiles, one block (migration 016; panels-block.ts).
    insertBlock: db.prepare('INSERT INTO profile_blocks (last_id, process_key, raw_bytes, panels) VALUES (?, ?, ?, ?)'),
    // The per-process panels once per content (migration 007), with the newest profile naming them.
    upsertProcess: db.prepare(`INSERT INTO profile_processes (key, panels, last_id) VALUES (?, ?, ?)
      ON CONFLICT (key) DO UPDATE SET last_id = max(last_id, excluded.last_id)`),
    // Retention deletes the oldest profiles first: a row whose newest profile is older than the oldest left is named by none.
    deleteUnusedProcesses: db.prepare(`DELETE FROM profile_processes
      WHERE last_id < coalesce((SELECT id FROM profiles ORDER BY id LIMIT 1), 9223372036854775807)`),
    findUrl: db.prepare('SELECT id, search_url AS searchUrl FROM profile_urls WHERE url = ?'),
    // The URL's search form (url-search-form.ts) is what the trigram index holds (triggers of migration 011).
    insertUrl: db.prepare('INSERT INTO profile_urls (url, search_url) VALUES (?, ?)'),
    setSearchUrl: db.prepare('UPDATE profile_urls SET search_url = ? WHERE id = ?'),
    insertIp: db.prepare('INSERT OR IGNORE INTO profile_ips (ip) VALUES (?)'),
    storedAs: db.prepare('SELECT id, deployment FROM profiles WHERE token = ?'),
    // One row, not a count of the table (migration 012), moved in the transaction of every insert and
    // delete (migration 016: by the writer, no longer by triggers).
    storedCount: db.prepare('SELECT profiles FROM profile_counts WHERE id = 1').pluck(),
    addToCount: db.prepare('UPDATE profile_counts SET profiles = profiles + ? WHERE id = 1'),
    oldestId: db.prepare('SELECT id FROM profiles ORDER BY id LIMIT 1').pluck(),
    nthOldestId: db.prepare('SELECT id FROM profiles ORDER BY id LIMIT 1 OFFSET ?').pluck(),
    // The oldest profiles' panel bytes added up, oldest first, over a window of them: their share of
    // their block's bytes, or the size of a profile_data row written before blocks (octet_length
    // reads a value's size from its record header, not its overflow pages).
    oldestPanelBytes: db.prepare(`SELECT p.id, sum(${STORED_PANEL_BYTES}) OVER (ORDER BY p.id) AS bytes
      FROM (SELECT id, block_id, block_bytes FROM profiles ORDER BY id LIMIT ?) p
      LEFT JOIN profile_blocks b ON b.id = p.block_id LEFT JOIN profile_data d ON d.profile_id = p.id`).raw(),
    // The newest profiles' panel bytes on average (the bytes of what pruning for size keeps).
    newestPanelBytes: db.prepare(`SELECT coalesce(avg(${STORED_PANEL_BYTES}), 0)
      FROM (SELECT id, block_id, block_bytes FROM profiles ORDER BY id DESC LIMIT ?) p
      LEFT JOIN profile_blocks b ON b.id = p.block_id LEFT JOIN profile_data d ON d.profile_id = p.id`).pluck(),
    deleteData: db.prepare('DELETE FROM profile_data WHERE profile_id <= ?'),
    // A block goes with the last of its profiles (its last_id bounds their ids from above).
    deleteBlocks: db.prepare('DELETE FROM profile_blocks WHERE last_id <= ?'),
    // Rare: a profile stored under a higher id than its batch gave it (insertOne).
    raiseBlockBound: db.prepare('UPDATE profile_blocks SET last_id = ? WHERE id = ?'),
    deleteProfiles: db.prepare('DELETE FROM profiles WHERE id <= ? RETURNING token, url_id AS urlId, ip'),
    // The URLs and IPs of pruned profiles leave in the same transaction when no profile uses them any
    // more (two index probes each): a sweep after the fact fell behind scanner traffic.
    deleteUrlIfUnused: db.prepare('DELETE FROM profile_urls WHERE id = ? AND NOT EXISTS (SELECT 1 FROM profiles WHERE url_id = ?) RETURNING url').pluck(),
    deleteIpIfUnused: db.prepare('DELETE FROM profile_ips WHERE ip = ? AND NOT EXISTS (SELECT 1 FROM profiles WHERE ip = ?)'),
    // An incremental 'optimize' of the URL trigram index: deletes in an external-content FTS5 table
    // add tombstones that only a merge into one segment removes (measured: 31 MB left for 90 KB of
    // live index). A negative N merges even when few segments exist, N pages of work at a time.
    compactUrlIndex: db.prepare("INSERT INTO profile_urls_fts (profile_urls_fts, rank) VALUES ('merge', ?)"),
    // The sweep looks at a window of URLs (and of IPs) per step (a bounded number of index probes),
    // not until it has found `limit` orphans: with none, that read every URL of the store each second.
    urlWindow: db.prepare('SELECT id FROM profile_urls WHERE id > ? ORDER BY id LIMIT ?').pluck(),
    orphanUrls: db.prepare(`DELETE FROM profile_urls WHERE id IN (
      SELECT u.id FROM profile_urls u WHERE u.id > ? AND u.id <= ? AND NOT EXISTS (SELECT 1 FROM profiles p WHERE p.url_id = u.id))
      RETURNING id, url`),
    // From an IP on (inclusive: a pass starts at ''), one more than the window: where the next one starts.
    ipWindow: db.prepare('SELECT ip FROM profile_ips WHERE ip >= ? ORDER BY ip LIMIT ?').pluck(),
    orphanIps: db.prepare(`DELETE FROM profile_ips WHERE ip >= ? AND ip <= ?
      AND NOT EXISTS (SELECT 1 FROM profiles p WHERE p.ip = profile_ips.ip) RETURNING ip`).pluck(),
    ...prepareRollupStatements(db),
    ...prepareStampStatements(db),
    pageCount: db.prepare('PRAGMA page_count').pluck(),
    freePages: db.prepare('PRAGMA freelist_count').pluck()
  }
}

/** The SQL function adding two stored histograms (registered on the writer's connection: addEncodedHistograms). */
const HISTOGRAM_ADD = 'profiler_histogram_add'

/** The route statistics' rollup rows (migrations/profiler/sqlite/002-route-stats.sql, 004), one row at a time by key. */
function prepareRollupStatements (db: Database) {
  db.function(HISTOGRAM_ADD, { deterministic: true }, (stored: unknown, delta: unknown) => addEncodedHistograms(stored as Uint8Array, delta as Uint8Array))
  return {
    // A batch's delta added to its row in one statement, the row's values read and written by SQLite
    // (the same sums as addDelta: integers, doubles, max, histograms); the count after says whether
    // the row is new (a stored row counts at least one request, so it ends above the delta's count).
    addRollup: db.prepare(`INSERT INTO profile_route_stats
      (span_ms, start_ms, deployment, method, route, status, count, kept, status_1xx, status_2xx, status_3xx, status_4xx, status_5xx, sum_ms, max_ms, histogram)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
      ON CONFLICT (span_ms, start_ms, deployment, method, route, status) DO UPDATE SET count = count + excluded.count, kept = kept + excluded.kept,
        status_1xx = status_1xx + excluded.status_1xx, status_2xx = status_2xx + excluded.status_2xx, status_3xx = status_3xx + excluded.status_3xx,
        status_4xx = status_4xx + excluded.status_4xx, status_5xx = status_5xx + excluded.status_5xx, sum_ms = sum_ms + excluded.sum_ms,
        max_ms = max(max_ms, excluded.max_ms), histogram = ${HISTOGRAM_ADD}(histogram, excluded.histogram)
      RETURNING count`).pluck(),
    // The statistics' bound: a span's oldest rows, a batch at a time (a primary-key range).
    deleteExpiredRollups: db.prepare(`DELETE FROM profile_route_stats WHERE (span_ms, start_ms, deployment, method, route, status) IN (
      SELECT span_ms, start_ms, deployment, method, route, status FROM profile_route_stats WHERE span_ms = ? AND start_ms <= ? LIMIT ?)`),
    // Whether a span has a row the bound deletes, or the tallies below have one: read first, since a
    // DELETE that finds nothing still costs a write transaction (measured: ~60 µs against ~3 for the
    // probe), and the step runs after every batch.
    anyExpiredRollup: db.prepare('SELECT 1 FROM profile_route_stats WHERE span_ms = ? AND start_ms <= ? LIMIT 1').pluck(),
    anyExpiredMissing: db.prepare('SELECT 1 FROM profile_statistics_missing WHERE start_ms <= ? - span_ms LIMIT 1').pluck(),
    // Requests the statistics could not count (migration 010), added up per deployment and period.
    addMissing: db.prepare(`INSERT INTO profile_statistics_missing (deployment, span_ms, start_ms, count) VALUES (?, ?, ?, ?)
      ON CONFLICT (deployment, span_ms, start_ms) DO UPDATE SET count = count + excluded.count`),
    // With the rollups' bound: the tallies of periods that ended before the hour rows kept.
    deleteExpiredMissing: db.prepare(`DELETE FROM profile_statistics_missing WHERE (deployment, span_ms, start_ms) IN (
      SELECT deployment, span_ms, start_ms FROM profile_statistics_missing WHERE start_ms <= ? - span_ms LIMIT ?)`),
    // Coarsening: the start of the n-th oldest row of a span before a time, then every row of that
    // span up to it (whole periods: every key of a period goes together, so the oldest period left is whole).
    nthOldestRollupStart: db.prepare('SELECT start_ms FROM profile_route_stats WHERE span_ms = ? AND start_ms < ? ORDER BY start_ms LIMIT 1 OFFSET ?').pluck(),
    deleteRollupsThrough: db.prepare('DELETE FROM profile_route_stats WHERE span_ms = ? AND start_ms <= ?'),
    minutesCoarsened: db.prepare('UPDATE profile_statistics_coarsened SET minutes_before_ms = max(minutes_before_ms, ?)'),
    hoursCoarsened: db.prepare('UPDATE profile_statistics_coarsened SET hours_before_ms = max(hours_before_ms, ?)'),
    // The b-trees' pages (dbstat, aggregated per b-tree): ~10 µs a page, so it is read now and then (retention.ts).
    btreeSize: db.prepare("SELECT coalesce(sum(pgsize), 0) AS bytes, coalesce(sum(ncell), 0) AS cells FROM dbstat('main', 1) WHERE name = ?")
  }
}

/** The statistics stamps (migrations/profiler/sqlite/008-statistics-stamps.sql; contract.ts: StatisticsStamp). */
function prepareStampStatements (db: Database) {
  return {
    recordStamp: db.prepare('INSERT INTO profile_statistics_stamps (source, seq, written_ms) VALUES (?, ?, ?) ON CONFLICT DO NOTHING'),
    releaseStamps: db.prepare('DELETE FROM profile_statistics_stamps WHERE source = ? AND seq < ?'),
    deleteStaleStamps: db.prepare('DELETE FROM profile_statistics_stamps WHERE written_ms < ?')
  }
}

interface DeletedProfile { token: string, urlId: number, ip: string }

/** Where a profile's panels are: its block, the byte offset in the block's texts and the length. */
interface PanelsPlace { blockId: number, at: number, bytes: number }

/**
 * A block holds at most this many profiles and (past its first) this many characters of panels:
 * reading one profile decodes its whole block (a block of 128 of the bench's mix: ~340 KB, ~1 ms),
 * and a block of 128 compresses about as well as one of 500.
 */
const BLOCK_PROFILES = 128
const BLOCK_CHARS = 512 * 1024

/** The batch's indexes in blocks: grouped by the per-process panels' key their profiles name (null: none), then cut to the bounds above. */
function blocksOf (batch: ProfileRecord[]): Array<[string | null, number[]]> {
  const open = new Map<string | null, { indexes: number[], chars: number }>()
  const blocks: Array<[string | null, number[]]> = []
  batch.forEach((profile, index) => {
    const key = profile.process?.key ?? null
    let block = open.get(key)
    if (block !== undefined && (block.indexes.length === BLOCK_PROFILES || block.chars + profile.panels.length > BLOCK_CHARS)) block = undefined
    if (block === undefined) {
      block = { indexes: [], chars: 0 }
      open.set(key, block)
      blocks.push([key, block.indexes])
    }
    block.indexes.push(index)
    block.chars += profile.panels.length
  })
  return blocks
}

/**
 * The profile store's writer: every INSERT and DELETE, on its own connection. It runs in the
 * writer thread (writer-worker.ts); the benchmarks also use it directly to seed stores.
 */
export class SqliteProfileWriter {
  /** Rows in `profiles`, as the store's count (migration 012) last said, kept in step by this writer's writes and prunes meanwhile. */
  count: number
  /**
   * Whether the search side tables may hold URLs or IPs no profile uses (SqliteRetention sweeps
   * them): a file written before their deletion went with the profiles', or a batch that rejected
   * a profile after its URL and IP were noted. Deleted profiles take theirs along (deleteUnusedKeys).
   */
  mayHoldOrphans = true
  /** The file's page size: it never changes once the file exists (WAL mode). */
  private readonly pageSize: number
  /** Rollup rows inserted since the writer opened: the statistics' growth (an update of a row adds no row). */
  rollupRowsInserted = 0
  private readonly statements: ReturnType<typeof prepareWriteStatements>
  private readonly urlIds = new Map<string, number>()
  private readonly knownIps = new Set<string>()
  private readonly insertBatch: (batch: ProfileRecord[], statisticsOnly: StatisticsOnly[], stamp: StatisticsStamp | undefined, missing: MissingWindow[]) => WriteResult
  private readonly deleteBatch: (throughId: number) => string[]
  /** The b-trees of the statistics' tables (the tables and their indexes). */
  private readonly statisticsBtrees: string[]

  /**
   * `onDeleted` hears the tokens of pruned profiles (the request thread keeps a set of tokens in use);
   * `deployment` is written with every profile (and given to rows from before the column existed).
   */
  constructor (private readonly db: Database, private readonly onDeleted: (tokens: string[]) => void = () => {}, private readonly deployment = hostname()) {
    this.statements = prepareWriteStatements(db)
    this.statisticsBtrees = db.prepare(`SELECT name FROM sqlite_schema WHERE type IN ('table', 'index') AND tbl_name IN (${STATISTICS_TABLES.map(() => '?').join(', ')})`)
      .pluck().all(...STATISTICS_TABLES) as string[]
    db.prepare('INSERT OR IGNORE INTO profile_deployments (name) VALUES (?)').run(deployment)
    db.prepare("UPDATE profiles SET deployment = ? WHERE deployment = ''").run(deployment)
    this.count = this.statements.storedCount.get() as number
    this.pageSize = db.pragma('page_size', { simple: true }) as number
    this.insertBatch = db.transaction((batch: ProfileRecord[], statisticsOnly: StatisticsOnly[], stamp: StatisticsStamp | undefined, missing: MissingWindow[]) => {
      const result: WriteResult = { written: 0, rejected: [] }
      // Every request of the batch is counted, its profile stored or not (a token taken elsewhere);
      // only a profile this very batch stored before (retried after its commit) is counted already.
      // Requests not kept as profiles are counted through the same function, without a profile row,
      // unless their stamp says this batch was committed before; so are the tallies of requests
      // that could not be counted (stats/missing.ts), which ride with them.
      const first = (statisticsOnly.length > 0 || missing.length > 0) && this.firstWithStamp(stamp)
      const counted: CountedRequest[] = first ? statisticsOnly.map(request => countedStatisticsOnly(request, this.deployment)) : []
      if (first) for (const window of missing) this.statements.addMissing.run(this.deployment, window.spanMs, window.startMs, window.count)
      const processes = new Map<string, { panels: string, lastId: number }>()
      const { places, lastIds } = this.insertBlocks(batch)
      const raised = new Set<number>()
      for (const [index, profile] of batch.entries()) {
        const place = places[index] as PanelsPlace
        const id = this.insertOne(profile, place)
        if (id === 'stored') continue
        // Moved past its block's bound (another writer held its id slot): the bound follows.
        if (id !== null && id > (lastIds.get(place.blockId) as number)) {
          lastIds.set(place.blockId, id)
          raised.add(place.blockId)
        }
        counted.push(countedRequest(profile, this.deployment, id !== null))
        if (id === null) {
          result.rejected.push(profile.token)
          this.mayHoldOrphans = true
          continue
        }
        result.written++
        if (profile.process !== undefined) {
          const lastId = Math.max(id, processes.get(profile.process.key)?.lastId ?? id)
          processes.set(profile.process.key, { panels: profile.process.panels, lastId })
        }
      }
      for (const [key, { panels, lastId }] of processes) this.statements.upsertProcess.run(key, panels, lastId)
      for (const blockId of raised) this.statements.raiseBlockBound.run(lastIds.get(blockId), blockId)
      if (result.written > 0) this.statements.addToCount.run(result.written)
      this.addToRollups(counted)
      return result
    })
    this.deleteBatch = db.transaction((throughId: number) => {
      this.statements.deleteData.run(throughId)
      this.statements.deleteBlocks.run(throughId)
      // The route statistics stay: they count requests, and have their own bound (deleteExpiredRollups).
      const deleted = this.statements.deleteProfiles.all(throughId) as DeletedProfile[]
      if (deleted.length > 0) this.statements.addToCount.run(-deleted.length)
      this.deleteUnusedKeys(deleted)
      if (deleted.length > 0) this.statements.deleteUnusedProcesses.run()
      return deleted.map(profile => profile.token)
    })
  }

  /** The profiles the file holds, read from its count (other processes may write to the same file). */
  recount (): number {
    this.count = this.statements.storedCount.get() as number
    return this.count
  }

  /** Does up to `pages` pages of merging in the URL search index, dropping its delete tombstones. */
  compactUrlIndex (pages: number): void {
    this.statements.compactUrlIndex.run(-Math.max(2, Math.floor(pages)))
  }

  /**
   * Writes a batch, and the requests recorded for the statistics only, in one transaction; with a
   * stamp, those are counted only the first time it is written (contract.ts: StatisticsStamp).
   */
  write (batch: ProfileRecord[], statisticsOnly: StatisticsOnly[] = [], stamp?: StatisticsStamp, missing: MissingWindow[] = []): WriteResult {
    try {
      const result = this.insertBatch(batch, statisticsOnly, stamp, missing)
      this.count += result.written
      return result
    } catch (err) {
      this.forgetUncommitted()
      throw err
    }
  }

  /**
   * Records `stamp` (in the caller's transaction) and deletes its source's stamps below its lowest
   * outstanding batch; true when it was not recorded before (or there is none): count the batch.
   */
  private firstWithStamp (stamp: StatisticsStamp | undefined): boolean {
    if (stamp === undefined) return true
    const recorded = this.statements.recordStamp.run(stamp.source, stamp.seq, Date.now()).changes === 1
    this.statements.releaseStamps.run(stamp.source, stamp.lowestOutstanding)
    return recorded
  }

  /** Deletes the statistics stamps written before `nowMs - maxAgeMs` (sources that stopped); returns how many went. */
  deleteStaleStamps (nowMs: number, maxAgeMs: number): number {
    return this.statements.deleteStaleStamps.run(nowMs - maxAgeMs).changes
  }

  /** After a rolled-back transaction: the caches may name rows that were never committed. */
  forgetUncommitted (): void {
    this.urlIds.clear()
    this.knownIps.clear()
  }

  /** Id of the oldest profile, or undefined when the store is empty. */
  oldestId (): number | undefined {
    return this.statements.oldestId.get() as number | undefined
  }

  /** Id of the n-th oldest profile (1 = the oldest). */
  nthOldestId (n: number): number | undefined {
    return this.statements.nthOldestId.get(n - 1) as number | undefined
  }

  /**
   * The id through which deleting the oldest profiles frees at least `bytes` of panels, looking at
   * no more than `window` of them (then the window's last); undefined when the store is empty.
   */
  idFreeing (bytes: number, window: number): number | undefined {
    let last: number | undefined
    for (const [id, freed] of this.statements.oldestPanelBytes.iterate(window) as IterableIterator<[number, number]>) {
      last = id
      if (freed >= bytes) break
    }
    return last
  }

  /** The panel bytes of the newest `window` profiles, on average (0 when the store is empty). */
  newestPanelBytes (window: number): number {
    return this.statements.newestPanelBytes.get(window) as number
  }

  /** Deletes every profile with id <= throughId (with its panels), in one transaction. */
  deleteThrough (throughId: number): number {
    const tokens = this.deleteBatch(throughId)
    this.count -= tokens.length
    if (tokens.length > 0) this.onDeleted(tokens)
    return tokens.length
  }

  private deleteUnusedKeys (deleted: DeletedProfile[]): void {
    const urlIds = new Set<number>()
    const ips = new Set<string>()
    for (const profile of deleted) {
      urlIds.add(profile.urlId)
      ips.add(profile.ip)
    }
    for (const id of urlIds) {
      const url = this.statements.deleteUrlIfUnused.get(id, id) as string | undefined
      if (url !== undefined) this.urlIds.delete(url)
    }
    for (const ip of ips) {
      if (this.statements.deleteIpIfUnused.run(ip, ip).changes > 0) this.knownIps.delete(ip)
    }
  }

  /**
   * Looks at the next `window` URLs after `afterId` and deletes those no profile uses any more;
   * returns the last id looked at (0 when the end was reached), to go on from there next time.
   */
  deleteOrphanUrls (afterId: number, window: number): { deleted: number, nextAfterId: number } {
    const ids = this.statements.urlWindow.all(afterId, window) as number[]
    const last = ids.at(-1)
    if (last === undefined) return { deleted: 0, nextAfterId: 0 }
    const rows = this.statements.orphanUrls.all(afterId, last) as Array<{ id: number, url: string }>
    for (const row of rows) this.urlIds.delete(row.url)
    return { deleted: rows.length, nextAfterId: ids.length < window ? 0 : last }
  }

  /**
   * Looks at the next `window` IPs from `from` on (inclusive) and deletes those no profile uses any
   * more; returns where the next window starts (null when the end was reached).
   */
  deleteOrphanIps (from: string, window: number): { deleted: number, nextFrom: string | null } {
    const ips = this.statements.ipWindow.all(from, window + 1) as string[]
    const last = ips.at(Math.min(ips.length, window) - 1)
    if (last === undefined) return { deleted: 0, nextFrom: null }
    const deleted = this.statements.orphanIps.all(from, last) as string[]
    for (const ip of deleted) this.knownIps.delete(ip)
    return { deleted: deleted.length, nextFrom: ips[window] ?? null }
  }

  /** Bytes the database uses, free pages excluded (what pruning can act on), and its free pages: one read of each. */
  pages (): { usedBytes: number, freePages: number } {
    const freePages = this.freePageCount()
    return { usedBytes: ((this.statements.pageCount.get() as number) - freePages) * this.pageSize, freePages }
  }

  /** Bytes the database uses, free pages excluded. */
  usedBytes (): number {
    return this.pages().usedBytes
  }

  freePageCount (): number {
    return this.statements.freePages.get() as number
  }

  /** Returns up to `pages` free pages to the file system (auto_vacuum = INCREMENTAL). */
  reclaim (pages: number): void {
    this.db.pragma(`incremental_vacuum(${Math.max(1, Math.floor(pages))})`)
  }

  /** Adds recorded requests to their rollup rows (in the caller's transaction). */
  private addToRollups (requests: CountedRequest[]): void {
    for (const delta of rollupDeltas(requests)) {
      const { count, kept, c1, c2, c3, c4, c5, sumMs, maxMs, histogram } = toStoredValues(delta)
      const after = this.statements.addRollup.get(delta.spanMs, delta.startMs, delta.deployment, delta.method, delta.route, delta.status,
        count, kept, c1, c2, c3, c4, c5, sumMs, maxMs, histogram) as number
      if (after === count) this.rollupRowsInserted++
    }
  }

  /**
   * Deletes up to `limit` rollup rows past the statistics' bound at `nowMs` (PROFILER_STATS_MAX_AGE;
   * minutes after two days at most); returns how many went.
   */
  deleteExpiredRollups (nowMs: number, statsMaxAgeMs: number, limit: number): number {
    let deleted = 0
    for (const { spanMs, startThroughMs } of expiredRollups(nowMs, statsMaxAgeMs)) {
      if (deleted < limit && this.statements.anyExpiredRollup.get(spanMs, startThroughMs) !== undefined) {
        deleted += this.statements.deleteExpiredRollups.run(spanMs, startThroughMs, limit - deleted).changes
      }
    }
    const hoursKeptFrom = (expiredRollups(nowMs, statsMaxAgeMs).at(-1)?.startThroughMs ?? 0) + HOUR_MS
    if (deleted < limit && this.statements.anyExpiredMissing.get(hoursKeptFrom) !== undefined) {
      deleted += this.statements.deleteExpiredMissing.run(hoursKeptFrom, limit - deleted).changes
    }
    return deleted
  }

  /**
   * Deletes the oldest whole periods of the statistics, about `limit` rows, in the order coarsening
   * gives (statisticsCoarsening); returns how many went (0: nothing is left that may go).
   */
  coarsenStatistics (nowMs: number, limit: number): number {
    for (const { spanMs, beforeMs } of statisticsCoarsening(nowMs)) {
      const through = (this.statements.nthOldestRollupStart.get(spanMs, beforeMs, limit - 1) as number | undefined) ?? beforeMs - 1
      const deleted = this.coarsenThrough(spanMs, through)
      if (deleted > 0) return deleted
    }
    return 0
  }

  /** Deletes a span's rows through a period's start, and notes how far minutes or hours are given up, in one transaction. */
  private readonly coarsenThrough = (spanMs: number, throughMs: number): number => this.db.transaction(() => {
    const deleted = this.statements.deleteRollupsThrough.run(spanMs, throughMs).changes
    if (deleted > 0) {
      if (spanMs === MINUTE_MS) this.statements.minutesCoarsened.run(throughMs + MINUTE_MS)
      else this.statements.hoursCoarsened.run(throughMs + HOUR_MS)
    }
    return deleted
  })()

  /**
   * Bytes the statistics' tables and indexes take in the file (their pages), and about how many
   * rollup rows they hold (the cells of its b-tree, its few interior ones included).
   */
  statisticsSize (): { bytes: number, rows: number } {
    let bytes = 0
    let rows = 0
    for (const name of this.statisticsBtrees) {
      const size = this.statements.btreeSize.get(name) as { bytes: number, cells: number }
      bytes += size.bytes
      if (name === 'profile_route_stats') rows = size.cells
    }
    return { bytes, rows }
  }

  private urlIdOf (url: string): number {
    const cached = this.urlIds.get(url)
    if (cached !== undefined) return cached
    const found = this.statements.findUrl.get(url) as { id: number, searchUrl: string | null } | undefined
    const searchUrl = storedSearchForm(url)
    // A URL stored before migration 011 has no form yet: set now (the trigger moves its index entry).
    if (found !== undefined && found.searchUrl !== searchUrl) this.statements.setSearchUrl.run(searchUrl, found.id)
    const id = found?.id ?? Number(this.statements.insertUrl.run(url, searchUrl).lastInsertRowid)
    if (this.urlIds.size >= CACHE_SIZE) this.urlIds.clear()
    this.urlIds.set(url, id)
    return id
  }

  private noteIp (ip: string): void {
    if (this.knownIps.has(ip)) return
    this.statements.insertIp.run(ip)
    if (this.knownIps.size >= CACHE_SIZE) this.knownIps.clear()
    this.knownIps.add(ip)
  }

  /**
   * The batch's panels as blocks, one per per-process key (almost always one): each profile's place
   * in its block, in the batch's order, and each block's bound (the highest id of its profiles, as
   * the batch gives them). A profile the batch then does not store (its token taken) leaves its
   * bytes in the block until retention deletes the block.
   */
  private insertBlocks (batch: ProfileRecord[]): { places: PanelsPlace[], lastIds: Map<number, number> } {
    const places: PanelsPlace[] = new Array(batch.length)
    const lastIds = new Map<number, number>()
    for (const [processKey, indexes] of blocksOf(batch)) {
      const block = encodePanelsBlock(indexes.map(index => (batch[index] as ProfileRecord).panels))
      const lastId = Math.max(...indexes.map(index => (batch[index] as ProfileRecord).id))
      const blockId = Number(this.statements.insertBlock.run(lastId, processKey, block.rawBytes, block.stored).lastInsertRowid)
      lastIds.set(blockId, lastId)
      indexes.forEach((index, at) => { places[index] = { blockId, ...(block.places[at] as { at: number, bytes: number }) } })
    }
    return { places, lastIds }
  }

  /**
   * Inserts one profile (returns its id, or null); a taken id moves to the next free slot of the same millisecond.
   * A stored profile is never overwritten: a taken token (or a full millisecond) rejects the new one,
   * unless the stored one is this very profile ('stored': same token, millisecond and deployment),
   * written by a batch whose answer was lost (the writer thread died after its commit) and retried.
   */
  private insertOne (profile: ProfileRecord, place: PanelsPlace): number | 'stored' | null {
    const urlId = this.urlIdOf(profile.url)
    this.noteIp(profile.ip)
    const msBase = profile.id - (profile.id % ID_SLOTS_PER_MS)
    for (let attempt = 0; attempt < ID_SLOTS_PER_MS; attempt++) {
      const id = msBase + ((profile.id + attempt) % ID_SLOTS_PER_MS)
      // Positional parameters: binding by name costs a property lookup per column.
      const inserted = this.statements.insertProfile.run(id, profile.token, profile.parentToken, profile.type, profile.ip, profile.method,
        profile.url, urlId, profile.statusCode, profile.durationMs, profile.route, this.deployment,
        ...rowCountValues(profile), profile.traceId ?? null,
        place.blockId, place.at, place.bytes)
      if (inserted.changes === 1) return id
      const stored = this.statements.storedAs.get(profile.token) as { id: number, deployment: string } | undefined
      if (stored === undefined) continue
      return stored.deployment === this.deployment && stored.id - (stored.id % ID_SLOTS_PER_MS) === msBase ? 'stored' : null
    }
    return null
  }
}
