// The random ids of an exported trace: its trace id and its spans' ids, in one slice of a pool of
// random bytes (no buffer per id).
import { randomFillSync } from 'node:crypto'

export const TRACE_ID_BYTES = 16
export const SPAN_ID_BYTES = 8

/**
 * Random bytes are drawn 64 KiB at a time and handed out in slices: a randomFillSync a profile took
 * about 15 µs, a third of making and encoding its spans (hot loop over 600 real profiles).
 */
const RANDOM_POOL_BYTES = 65_536
let randomPool = Buffer.alloc(0)
let randomPoolAt = 0

function randomSlice (bytes: number): Buffer {
  if (bytes > RANDOM_POOL_BYTES) return randomFillSync(Buffer.allocUnsafe(bytes))
  if (randomPoolAt + bytes > randomPool.length) {
    randomPool = randomFillSync(Buffer.allocUnsafe(RANDOM_POOL_BYTES))
    randomPoolAt = 0
  }
  randomPoolAt += bytes
  return randomPool.subarray(randomPoolAt - bytes, randomPoolAt)
}

/**
 * A trace's ids: its trace id, then a slot of 8 bytes per span id. Random ids are made valid (not
 * all zero); the request's own are written in.
 */
export class TraceIds {
  readonly bytes: Buffer
  constructor (slots: number) {
    this.bytes = randomSlice(TRACE_ID_BYTES + SPAN_ID_BYTES * slots)
  }

  /** The trace id: the request's (hex), or the random one. */
  trace (hex: string | undefined): void {
    if (hex === undefined) this.nonZero(0)
    else this.bytes.write(hex, 0, TRACE_ID_BYTES, 'hex')
  }

  /** Where slot `index`'s random span id lies. */
  span (index: number): number {
    const at = TRACE_ID_BYTES + index * SPAN_ID_BYTES
    this.nonZero(at)
    return at
  }

  /** Where slot `index` lies, holding the span id given (hex). */
  given (index: number, hex: string): number {
    const at = TRACE_ID_BYTES + index * SPAN_ID_BYTES
    this.bytes.write(hex, at, SPAN_ID_BYTES, 'hex')
    return at
  }

  /** An all-zero id is invalid: one bit set makes sure. */
  private nonZero (at: number): void {
    this.bytes[at] = (this.bytes[at] as number) | 1
  }
}
