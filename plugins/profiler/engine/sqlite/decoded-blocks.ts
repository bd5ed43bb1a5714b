// A profile's panels read from its block (migration 016): the reader decodes the whole block, and
// keeps the few it decoded last, since the profiles read one after the other (a HAR of a search,
// the pages of neighbours) are most often in the same block. Blocks never change, and a block id
// is never used again (AUTOINCREMENT), so a decoded block is good for as long as it is kept.
import type { ProfileRow } from '../profile-rows.js'
import { decodePanelsBlock } from './panels-block.js'

/** A profile's row as the SQLite reader reads it: panels null when they are in a block. */
export type BlockProfileRow = Omit<ProfileRow, 'panels'> & { panels: string | null, block_id: number | null, block: Uint8Array | null, block_at: number | null, block_bytes: number | null }

/** How many decoded blocks a reader keeps (~300 KB each for batches of 100 profiles of the bench's mix). */
const KEPT_BLOCKS = 4

export class DecodedBlocks {
  private readonly kept = new Map<number, Buffer>()

  /** The row with its panels' text in place (from its block when they are in one). */
  withPanels (row: BlockProfileRow | undefined): ProfileRow | undefined {
    if (row === undefined) return undefined
    const { block_id: blockId, block, block_at: at, block_bytes: bytes, ...rest } = row
    if (rest.panels !== null) return { ...rest, panels: rest.panels }
    if (blockId === null || block === null || at === null || bytes === null) throw new Error(`profile ${row.token}: its panels are in no block`)
    return { ...rest, panels: this.texts(blockId, block).toString('utf8', at, at + bytes) }
  }

  private texts (blockId: number, block: Uint8Array): Buffer {
    const kept = this.kept.get(blockId)
    if (kept !== undefined) {
      // Most recently used last: the first key is the one to let go.
      this.kept.delete(blockId)
      this.kept.set(blockId, kept)
      return kept
    }
    const texts = decodePanelsBlock(block)
    this.kept.set(blockId, texts)
    if (this.kept.size > KEPT_BLOCKS) this.kept.delete(this.kept.keys().next().value as number)
    return texts
  }
}
