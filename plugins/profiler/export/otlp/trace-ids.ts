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
let randomPoolView = new DataView(randomPool.buffer, randomPool.byteOffset, 0)
let randomPoolAt = 0

function newPool (bytes: number): void {
  randomPool = randomFillSync(Buffer.allocUnsafeSlow(bytes))
  randomPoolView = new DataView(randomPool.buffer, randomPool.byteOffset, randomPool.length)
  randomPoolAt = 0
}

/**
 * A trace's ids: its trace id, then a slot of 8 bytes per span id, at `base` in `pool` (no buffer
 * of its own: the protobuf encoding copies them from the pool through `view`). Random ids are made
 * valid (not all zero); the request's own are written in. Offsets returned are from `base`.
 */
export class TraceIds {
  readonly pool: Buffer
  readonly view: DataView
  readonly base: number
  private readonly length: number
  constructor (slots: number) {
    const bytes = TRACE_ID_BYTES + SPAN_ID_BYTES * slots
    if (randomPoolAt + bytes > randomPool.length) newPool(Math.max(RANDOM_POOL_BYTES, bytes))
    this.pool = randomPool
    this.view = randomPoolView
    this.base = randomPoolAt
    this.length = bytes
    randomPoolAt += bytes
  }

  /** The ids as a buffer of their own (a view of the pool). */
  get bytes (): Buffer {
    return this.pool.subarray(this.base, this.base + this.length)
  }

  /** The trace id: the request's (hex), or the random one. */
  trace (hex: string | undefined): void {
    if (hex === undefined) this.nonZero(0)
    else this.pool.write(hex, this.base, TRACE_ID_BYTES, 'hex')
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
    this.pool.write(hex, this.base + at, SPAN_ID_BYTES, 'hex')
    return at
  }

  /** An all-zero id is invalid: one bit set makes sure. */
  private nonZero (at: number): void {
    this.pool[this.base + at] = (this.pool[this.base + at] as number) | 1
  }
}
