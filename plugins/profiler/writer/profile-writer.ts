import { hostname } from 'node:os'
import type { Database } from 'better-sqlite3'
import { ID_SLOTS_PER_MS, type ProfileRecord } from '../profile.js'

/** Recently used URL ids and IPs kept in memory, so that repeated URLs cost no lookup. */
const CACHE_SIZE = 5_000

function prepareWriteStatements (db: Database) {
  return {
    insertProfile: db.prepare(`
      INSERT INTO profiles (id, token, parent_token, type, ip, method, url, url_id, status_code, duration_ms, route, deployment)
      VALUES (@id, @token, @parentToken, @type, @ip, @method, @url, @urlId, @statusCode, @durationMs, @route, @deployment)
      ON CONFLICT DO NOTHING`),
    insertPanels: db.prepare('INSERT INTO profile_data (profile_id, panels) VALUES (?, ?)'),
    findUrl: db.prepare('SELECT id FROM profile_urls WHERE url = ?').pluck(),
    insertUrl: db.prepare('INSERT INTO profile_urls (url) VALUES (?)'),
    insertIp: db.prepare('INSERT OR IGNORE INTO profile_ips (ip) VALUES (?)'),
    tokenTaken: db.prepare('SELECT 1 FROM profiles WHERE token = ?').pluck(),
    countAll: db.prepare('SELECT count(*) FROM profiles').pluck(),
    oldestId: db.prepare('SELECT id FROM profiles ORDER BY id LIMIT 1').pluck(),
    nthOldestId: db.prepare('SELECT id FROM profiles ORDER BY id LIMIT 1 OFFSET ?').pluck(),
    deleteData: db.prepare('DELETE FROM profile_data WHERE profile_id <= ?'),
    deleteProfiles: db.prepare('DELETE FROM profiles WHERE id <= ? RETURNING token').pluck(),
    orphanUrls: db.prepare(`DELETE FROM profile_urls WHERE id IN (
      SELECT u.id FROM profile_urls u WHERE u.id > ? AND NOT EXISTS (SELECT 1 FROM profiles p WHERE p.url_id = u.id)
      ORDER BY u.id LIMIT ?) RETURNING id, url`),
    orphanIps: db.prepare('DELETE FROM profile_ips WHERE NOT EXISTS (SELECT 1 FROM profiles p WHERE p.ip = profile_ips.ip) RETURNING ip').pluck(),
    pageCount: db.prepare('PRAGMA page_count').pluck(),
    freePages: db.prepare('PRAGMA freelist_count').pluck(),
    pageSize: db.prepare('PRAGMA page_size').pluck()
  }
}

export interface WriteResult {
  written: number
  /** Tokens of profiles that were not stored (their token is free again). */
  rejected: string[]
}

/**
 * The profile store's writer: every INSERT and DELETE, on its own connection. It runs in the
 * writer thread (writer-worker.ts); the benchmarks also use it directly to seed stores.
 */
export class ProfileWriter {
  /** Rows in `profiles`, kept in step by writes and prunes (counting a large table is slow). */
  count: number
  private readonly statements: ReturnType<typeof prepareWriteStatements>
  private readonly urlIds = new Map<string, number>()
  private readonly knownIps = new Set<string>()
  private readonly insertBatch: (batch: ProfileRecord[]) => WriteResult
  private readonly deleteBatch: (throughId: number) => string[]

  /**
   * `onDeleted` hears the tokens of pruned profiles (the request thread keeps a set of tokens in use);
   * `deployment` is written with every profile (and given to rows from before the column existed).
   */
  constructor (private readonly db: Database, private readonly onDeleted: (tokens: string[]) => void = () => {}, private readonly deployment = hostname()) {
    this.statements = prepareWriteStatements(db)
    db.prepare('INSERT OR IGNORE INTO profile_deployments (name) VALUES (?)').run(deployment)
    db.prepare("UPDATE profiles SET deployment = ? WHERE deployment = ''").run(deployment)
    this.count = this.statements.countAll.get() as number
    this.insertBatch = db.transaction((batch: ProfileRecord[]) => {
      const result: WriteResult = { written: 0, rejected: [] }
      for (const profile of batch) {
        if (this.insertOne(profile)) result.written++
        else result.rejected.push(profile.token)
      }
      return result
    })
    this.deleteBatch = db.transaction((throughId: number) => {
      this.statements.deleteData.run(throughId)
      return this.statements.deleteProfiles.all(throughId) as string[]
    })
  }

  /** Writes a batch in one transaction. */
  write (batch: ProfileRecord[]): WriteResult {
    try {
      const result = this.insertBatch(batch)
      this.count += result.written
      return result
    } catch (err) {
      // The transaction rolled back: the caches may name rows that were never committed.
      this.urlIds.clear()
      this.knownIps.clear()
      throw err
    }
  }

  /** Id of the oldest profile, or undefined when the store is empty. */
  oldestId (): number | undefined {
    return this.statements.oldestId.get() as number | undefined
  }

  /** Id of the n-th oldest profile (1 = the oldest). */
  nthOldestId (n: number): number | undefined {
    return this.statements.nthOldestId.get(n - 1) as number | undefined
  }

  /** Deletes every profile with id <= throughId (with its panels), in one transaction. */
  deleteThrough (throughId: number): number {
    const tokens = this.deleteBatch(throughId)
    this.count -= tokens.length
    if (tokens.length > 0) this.onDeleted(tokens)
    return tokens.length
  }

  /**
   * Deletes up to `limit` URLs after `afterId` that no profile uses any more; returns the last
   * id looked at (0 when the end was reached), to go on from there next time.
   */
  deleteOrphanUrls (afterId: number, limit: number): { deleted: number, nextAfterId: number } {
    const rows = this.statements.orphanUrls.all(afterId, limit) as Array<{ id: number, url: string }>
    for (const row of rows) this.urlIds.delete(row.url)
    return { deleted: rows.length, nextAfterId: rows.length < limit ? 0 : rows.at(-1)?.id ?? 0 }
  }

  deleteOrphanIps (): number {
    const ips = this.statements.orphanIps.all() as string[]
    for (const ip of ips) this.knownIps.delete(ip)
    return ips.length
  }

  /** Bytes the database uses, free pages excluded (what pruning can act on). */
  usedBytes (): number {
    return ((this.statements.pageCount.get() as number) - this.freePageCount()) * (this.statements.pageSize.get() as number)
  }

  freePageCount (): number {
    return this.statements.freePages.get() as number
  }

  /** Returns up to `pages` free pages to the file system (auto_vacuum = INCREMENTAL). */
  reclaim (pages: number): void {
    this.db.pragma(`incremental_vacuum(${Math.max(1, Math.floor(pages))})`)
  }

  private urlIdOf (url: string): number {
    const cached = this.urlIds.get(url)
    if (cached !== undefined) return cached
    const id = (this.statements.findUrl.get(url) as number | undefined) ?? Number(this.statements.insertUrl.run(url).lastInsertRowid)
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
   * Inserts one profile; a taken id moves to the next free slot of the same millisecond.
   * A stored profile is never overwritten: a taken token (or a full millisecond) rejects the new one.
   */
  private insertOne (profile: ProfileRecord): boolean {
    const row = { ...profile, urlId: this.urlIdOf(profile.url), deployment: this.deployment }
    this.noteIp(profile.ip)
    const msBase = profile.id - (profile.id % ID_SLOTS_PER_MS)
    for (let attempt = 0; attempt < ID_SLOTS_PER_MS; attempt++) {
      row.id = msBase + ((profile.id + attempt) % ID_SLOTS_PER_MS)
      if (this.statements.insertProfile.run(row).changes === 1) {
        this.statements.insertPanels.run(row.id, profile.panels)
        return true
      }
      if (this.statements.tokenTaken.get(profile.token) !== undefined) break
    }
    return false
  }
}
