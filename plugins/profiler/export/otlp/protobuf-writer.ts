// The few protobuf wire-format writes OTLP's trace messages need (protobuf's "Encoding" guide):
// varints, little-endian fixed64 and double, length-delimited fields. A nested message is written
// in place, after room left for its length, and the length put there once it is known (open/close),
// with no buffer per message; the message moves only when its length's varint needs more or fewer
// bytes than were left.

const WIRE_VARINT = 0
const WIRE_FIXED64 = 1
export const WIRE_LENGTH = 2
const TWO_32 = 2 ** 32
const TWO_16 = 2 ** 16

/** Strings up to this long are measured and written in JS when they are ASCII: no call into the runtime for a short key or value. */
const SHORT_STRING = 64
/** Byte arrays up to this long are copied in JS (ids: 8 and 16 bytes). */
const SHORT_BYTES = 32

/** The bytes of `value` as a varint. */
export function varintSize (value: number): number {
  let size = 1
  while (value >= 0x80) {
    value = Math.floor(value / 128)
    size++
  }
  return size
}

/** The bytes of `value` in UTF-8. */
export function utf8Length (value: string): number {
  if (value.length > SHORT_STRING) return Buffer.byteLength(value)
  for (let i = 0; i < value.length; i++) {
    if (value.charCodeAt(i) >= 0x80) return Buffer.byteLength(value)
  }
  return value.length
}

/** `value` (a non-negative integer up to 2^53) as a varint into `buffer` at `at`, which has room; the position after it. */
export function writeVarint (buffer: Buffer, at: number, value: number): number {
  while (value >= 0x80) {
    buffer[at++] = (value % 128) | 0x80
    value = Math.floor(value / 128)
  }
  buffer[at++] = value
  return at
}

/** Bytes are written in arenas of 256 KiB: one allocation per arena, not one per trace. */
const ARENA_BYTES = 256 * 1024

export class ProtoWriter {
  /** The arena written in: what was taken lies before `start`, what is being written from there to `position`. */
  private buffer = Buffer.allocUnsafeSlow(0)
  /** The arena as a DataView: ids and times are written four bytes at a time. */
  private view = new DataView(this.buffer.buffer, this.buffer.byteOffset, 0)
  private start = 0
  private position = 0
  /** For each open message: where its body starts and the bytes left in front of it for its length. */
  private readonly starts: number[] = []

  /**
   * The first `bytes` written since the last take (all of them by default), as they lie in the arena
   * (no copy): consecutive takes lie side by side, and joinedNeighbours() makes them one view.
   * Nothing written later touches them.
   */
  take (bytes = this.position - this.start): Buffer {
    const taken = this.buffer.subarray(this.start, this.start + bytes)
    this.start += bytes
    return taken
  }

  /** Drops what was written after the first `bytes` since the last take (a message left halfway by an error, a trace not kept). */
  rewind (bytes: number): void {
    this.position = this.start + bytes
    this.starts.length = 0
  }

  /** Drops what was written since the last take. */
  restart (): void {
    this.rewind(0)
  }

  /** Room for `bytes` more: when the arena is full, what is being written moves to a new one (larger, for a larger message). */
  private room (bytes: number): void {
    if (this.position + bytes <= this.buffer.length) return
    const written = this.position - this.start
    const arena = Buffer.allocUnsafeSlow(Math.max(ARENA_BYTES, 2 * (written + bytes)))
    this.buffer.copy(arena, 0, this.start, this.position)
    for (let i = 0; i < this.starts.length; i += 2) this.starts[i] = (this.starts[i] as number) - this.start
    this.buffer = arena
    this.view = new DataView(arena.buffer, arena.byteOffset, arena.length)
    this.position = written
    this.start = 0
  }

  /** A non-negative integer up to 2^53. */
  varint (value: number): void {
    this.room(10)
    this.position = writeVarint(this.buffer, this.position, value)
  }

  /** A field's key: its number and wire type. */
  tag (field: number, wire: number): void {
    this.varint(field * 8 + wire)
  }

  /** `value`'s UTF-8 bytes, `byteLength` of them (utf8Length), with no key or length in front. */
  utf8 (value: string, byteLength: number): void {
    this.room(byteLength)
    if (byteLength === value.length && byteLength <= SHORT_STRING) {
      for (let i = 0; i < byteLength; i++) this.buffer[this.position + i] = value.charCodeAt(i)
      this.position += byteLength
    } else {
      this.position += this.buffer.write(value, this.position)
    }
  }

  uint (field: number, value: number): void {
    this.tag(field, WIRE_VARINT)
    this.varint(value)
  }

  double (field: number, value: number): void {
    this.tag(field, WIRE_FIXED64)
    this.room(8)
    this.buffer.writeDoubleLE(value, this.position)
    this.position += 8
  }

  /** A fixed64 of `ms` × 10^6 + `extraNs` (epoch nanoseconds: exact, though past 2^53). */
  nanos (field: number, ms: number, extraNs: number): void {
    this.tag(field, WIRE_FIXED64)
    this.room(8)
    this.patchNanos(this.position, ms, extraNs)
    this.position += 8
  }

  /** The 8 bytes at `at` (written already) made those of nanos()'s value. */
  patchNanos (at: number, ms: number, extraNs: number): void {
    // ms × 10^6 = (high × 2^16 + low16) × 10^6, every product below 2^53.
    const high = Math.floor(ms / TWO_16)
    const scaled = high * 1e6
    const scaledHigh = Math.floor(scaled / TWO_16)
    const low = (scaled - scaledHigh * TWO_16) * TWO_16 + (ms - high * TWO_16) * 1e6 + extraNs
    const carry = Math.floor(low / TWO_32)
    this.view.setUint32(at, low - carry * TWO_32, true)
    this.view.setUint32(at + 4, scaledHigh + carry, true)
  }

  /**
   * The 8 or 16 bytes at `at` (written already) made those of `source` from `start`: an id, four
   * bytes at a time (a byte loop was a tenth of the encoding, CPU profile over recorded profiles).
   */
  patchId (at: number, source: DataView, start: number, length: 8 | 16): void {
    const view = this.view
    for (let i = 0; i < length; i += 4) view.setUint32(at + i, source.getUint32(start + i, true), true)
  }

  /** `length` bytes of `value` from `start` copied in (room made). */
  private copyIn (value: Uint8Array, start: number, length: number): void {
    this.patch(this.position, value, start, length)
    this.position += length
  }

  /** `length` bytes at `at` (written already) made those of `value` from `start`: a few (an id) byte by byte, cheaper than a call to TypedArray.set. */
  patch (at: number, value: Uint8Array, start: number, length: number): void {
    if (length > SHORT_BYTES) {
      this.buffer.set(start === 0 && length === value.length ? value : value.subarray(start, start + length), at)
    } else {
      const buffer = this.buffer
      for (let i = 0; i < length; i++) buffer[at + i] = value[start + i] as number
    }
  }

  string (field: number, value: string): void {
    this.tag(field, WIRE_LENGTH)
    const bytes = utf8Length(value)
    this.varint(bytes)
    this.utf8(value, bytes)
  }

  /** A bytes field of `length` bytes of `value` from `start` (all of it by default). */
  bytes (field: number, value: Uint8Array, start = 0, length = value.length - start): void {
    this.tag(field, WIRE_LENGTH)
    this.varint(length)
    this.room(length)
    this.copyIn(value, start, length)
  }

  /** Bytes already encoded, written as they are; returns where they begin (for patch() and patchNanos(), until the next write). */
  raw (value: Uint8Array): number {
    this.room(value.length)
    const at = this.position
    this.copyIn(value, 0, value.length)
    return at
  }

  /** Bytes written since the last take. */
  get offset (): number {
    return this.position - this.start
  }

  /**
   * Starts a nested message in `field`, `lengthBytes` left for its length (1: below 128 bytes,
   * 2: below 16 KiB); close() ends it. A right guess saves moving the message (a span's 200 bytes:
   * the costliest line of the encoding, CPU profile over real profiles).
   */
  open (field: number, lengthBytes = 1): void {
    this.tag(field, WIRE_LENGTH)
    this.room(lengthBytes)
    this.position += lengthBytes
    this.starts.push(this.position, lengthBytes)
  }

  close (): void {
    const reserved = this.starts.pop() as number
    const start = this.starts.pop() as number
    const length = this.position - start
    const size = varintSize(length)
    if (size !== reserved) {
      this.room(size - reserved)
      this.buffer.copyWithin(start + size - reserved, start, this.position)
    }
    const end = this.position + size - reserved
    this.position = start - reserved
    this.varint(length)
    this.position = end
  }
}

/**
 * `parts` with each run of neighbours in one memory (ProtoWriter.take's arena) joined into a single
 * view: a request's body as a few buffers to write, never copied into one.
 */
export function joinedNeighbours (parts: Buffer[]): Buffer[] {
  const joined: Buffer[] = []
  let last: Buffer | undefined
  for (const part of parts) {
    if (last !== undefined && part.buffer === last.buffer && part.byteOffset === last.byteOffset + last.length) {
      last = Buffer.from(last.buffer, last.byteOffset, last.length + part.length)
      joined[joined.length - 1] = last
    } else {
      last = part
      joined.push(part)
    }
  }
  return joined
}

/** The bytes of a length-delimited field's key and length, for a field of `length` bytes written apart. */
export function lengthPrefix (field: number, length: number): Buffer {
  const key = field * 8 + WIRE_LENGTH
  const prefix = Buffer.allocUnsafe(varintSize(key) + varintSize(length))
  writeVarint(prefix, writeVarint(prefix, 0, key), length)
  return prefix
}
