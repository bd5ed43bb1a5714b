// The panels of a batch's profiles as one block (migration 016): their JSON texts as UTF-8, one
// after the other, compressed together. A profile's row says where its text is in the block
// (offset and length, uncompressed). Brotli at quality 0 (measured on blocks of 128 profiles of the
// bench's mix: 8.7× smaller, ~7 µs of CPU a profile; deflate level 1 gave the same ratio for ~10 µs,
// and one profile compressed alone cost 70-340 µs a call). The first byte says the format.
import { brotliCompressSync, brotliDecompressSync, constants } from 'node:zlib'

/** The only format so far: the texts, UTF-8, one after the other, Brotli-compressed. */
const BROTLI_TEXTS = 1

/** A block's bytes as stored, its size before compression, and where each text is (in the order given). */
export interface PanelsBlock { stored: Buffer, rawBytes: number, places: Array<{ at: number, bytes: number }> }

export function encodePanelsBlock (texts: string[]): PanelsBlock {
  const lengths = texts.map(text => Buffer.byteLength(text))
  const raw = Buffer.allocUnsafe(lengths.reduce((sum, length) => sum + length, 0))
  const places: PanelsBlock['places'] = []
  let offset = 0
  texts.forEach((text, index) => {
    const length = lengths[index] as number
    raw.write(text, offset, length, 'utf8')
    places.push({ at: offset, bytes: length })
    offset += length
  })
  const compressed = brotliCompressSync(raw, {
    params: { [constants.BROTLI_PARAM_QUALITY]: 0, [constants.BROTLI_PARAM_SIZE_HINT]: raw.length, [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT }
  })
  return { stored: Buffer.concat([Buffer.of(BROTLI_TEXTS), compressed]), rawBytes: raw.length, places }
}

/**
 * A block that cannot be read back: said as SQLite says a corrupt page (its name and code), so that
 * the readers answer as for a corrupt file (503, the store unavailable, reopened later), not as a bug.
 */
class UnreadableBlockError extends Error {
  override readonly name = 'SqliteError'
  readonly code = 'SQLITE_CORRUPT'
}

/** A block's texts, one after the other, as written (an unknown format or corrupt bytes throw UnreadableBlockError). */
export function decodePanelsBlock (stored: Uint8Array): Buffer {
  if (stored[0] !== BROTLI_TEXTS) throw new UnreadableBlockError(`a block of panels in an unknown format (${stored[0] ?? 'empty'}): corrupt, or written by a newer release`)
  try {
    return brotliDecompressSync(stored.subarray(1))
  } catch (err) {
    throw new UnreadableBlockError(`a block of panels cannot be decompressed: ${(err as Error).message}`, { cause: err })
  }
}
