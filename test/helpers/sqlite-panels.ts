// What a SQLite profile store holds as each profile's panels, wherever they are: decoded from the
// profile's block (migration 016) or read from its profile_data row (written before blocks).
// Tests that look for what must not be stored read this, not the file's raw bytes: blocks are
// compressed, so a secret written into one would not show as such in the file.
import { existsSync, readFileSync } from 'node:fs'
import { basename } from 'node:path'
import BetterSqlite3, { type Database } from 'better-sqlite3'
import { decodePanelsBlock } from '../../plugins/profiler/engine/sqlite/panels-block.js'
import { parseStoredPanels } from '../../plugins/profiler/panels/stored-panels.js'

export interface StoredPanelsRow { id: number, token: string, panels: string, processKey: string | null }

interface Row { id: number, token: string, panels: string | null, data_key: string | null, block_id: number | null, block: Uint8Array | null, block_key: string | null, block_at: number | null, block_bytes: number | null }

/** Every stored profile's panels text, oldest first (a profile whose panels are nowhere is left out). */
export function sqlitePanels (db: Database): StoredPanelsRow[] {
  const rows = db.prepare(`SELECT p.id, p.token, d.panels, d.process_key AS data_key, p.block_id, b.panels AS block, b.process_key AS block_key, p.block_at, p.block_bytes
    FROM profiles p LEFT JOIN profile_data d ON d.profile_id = p.id LEFT JOIN profile_blocks b ON b.id = p.block_id ORDER BY p.id`).all() as Row[]
  const decoded = new Map<number, Buffer>()
  const stored: StoredPanelsRow[] = []
  for (const row of rows) {
    if (row.panels !== null) {
      stored.push({ id: row.id, token: row.token, panels: row.panels, processKey: row.data_key })
      continue
    }
    if (row.block_id === null || row.block === null) continue
    let texts = decoded.get(row.block_id)
    if (texts === undefined) {
      texts = decodePanelsBlock(row.block)
      decoded.set(row.block_id, texts)
    }
    const at = row.block_at as number
    stored.push({ id: row.id, token: row.token, panels: texts.toString('utf8', at, at + (row.block_bytes as number)), processKey: row.block_key })
  }
  return stored
}

/** One profile's panels as stored, by panel name whatever their form (undefined when it has none stored). */
export function sqlitePanelsOf (db: Database, token: string): Record<string, any> | undefined {
  const row = sqlitePanels(db).find(stored => stored.token === token)
  return row === undefined ? undefined : parseStoredPanels(row.panels)
}

/**
 * What a scan for secrets must read of a SQLite store: the bytes of its file and WAL, and its
 * profiles' panels decoded from their blocks (compressed, they would not show in the bytes).
 */
export function sqliteStoreContents (path: string): Array<{ where: string, bytes: Buffer }> {
  const files = [path, `${path}-wal`].filter(file => existsSync(file)).map(file => ({ where: basename(file), bytes: readFileSync(file) }))
  const db = new BetterSqlite3(path, { readonly: true })
  try {
    return [...files, { where: 'its panels, decoded', bytes: Buffer.from(sqlitePanels(db).map(row => row.panels).join('\n')) }]
  } finally {
    db.close()
  }
}

/**
 * Rewrites every profile of the file as the release before blocks stored it (a profile_data row
 * each, no block): what a store written by that release holds once migration 016 has run.
 * Returns how many profiles were moved.
 */
export function storeAsBeforeBlocks (path: string): number {
  const db = new BetterSqlite3(path)
  try {
    return db.transaction(() => {
      const rows = sqlitePanels(db)
      const insert = db.prepare('INSERT INTO profile_data (profile_id, panels, process_key) VALUES (?, ?, ?)')
      for (const row of rows) insert.run(row.id, row.panels, row.processKey)
      db.prepare('UPDATE profiles SET block_id = NULL, block_at = NULL, block_bytes = NULL').run()
      db.prepare('DELETE FROM profile_blocks').run()
      return rows.length
    })()
  } finally {
    db.close()
  }
}
