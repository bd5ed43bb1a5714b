import type { Socket } from 'node:net'

// The bytes a connection has sent of its current request head, kept between reads. When Node's HTTP
// parser rejects a head, the error's `rawPacket` holds only the read it failed in: a head that
// arrived in several reads (a 60 KB URL on a busy machine) has its method, the start of its target
// and its first header lines in the reads before. Kept here, they are put back in front of that
// packet (raw-head.ts).
//
// Node's server parses in C++ straight from the socket ("consumed": no 'data' event is emitted);
// a 'data' listener would move every read of the connection into JavaScript (measured on a plain
// Node server answering "ok" to keep-alive GETs: 18.5 → 24 µs of CPU per request, where this
// wrapper measured 18.2, within the noise). What Node does call in JavaScript on every read is the
// parser's execute callback (parser[HTTPParser.kOnExecute], the function that turns a parse error
// into 'clientError'). Wrapped, it asks the parser whether the read ended inside a head
// (`headersCompleted()` is false from a message's first byte until its head is complete): only
// then is the read copied (`getCurrentBuffer()`). A normal request's head is complete in the read
// that carries it, so its reads cost one call more and copy nothing. These are Node's internals
// (the parser object is `socket.parser`; the slot is read from its class, not from the
// `_http_common` module): where any of them is missing, nothing is kept and a rejection is read
// from its packet alone, as before. So is a connection Node no longer parses in C++ (a 'data'
// listener added to its socket): its packet is then the whole chunk read, and it has no callback.
//
// Bounds: at most MAX_KEPT bytes a connection, the last ones (they run on into the packet the
// error brings; the reads before the one that crosses Node's 16 KiB limit hold less than that of
// the head's text, with its separators a little more), freed when the head is complete, when the
// parser rejects it (taken by the rejection) and when the connection closes.

/** The most bytes kept of a connection's current head. */
export const MAX_KEPT = 64 * 1024

const KEPT = Symbol('head bytes')
const WATCHED = Symbol('head bytes freed on close')
type KeepingSocket = Socket & { [KEPT]?: Buffer, [WATCHED]?: boolean }

/** What this module uses of Node's HTTPParser (lib/_http_server.js, src/node_http_parser.cc). */
interface NodeParser {
  headersCompleted: () => boolean
  getCurrentBuffer: () => Buffer
  constructor: { kOnExecute?: unknown }
  [slot: number]: unknown
}

function isNodeParser (parser: unknown): parser is NodeParser {
  if (typeof parser !== 'object' || parser === null) return false
  const candidate = parser as Partial<NodeParser>
  return typeof candidate.headersCompleted === 'function' && typeof candidate.getCurrentBuffer === 'function'
}

function free (socket: KeepingSocket): void {
  socket[KEPT] = undefined
}

/** `read` after what is kept, as one buffer of at most MAX_KEPT bytes (the last ones, copied: nothing larger stays referenced). */
function keep (socket: KeepingSocket, read: Buffer): void {
  const kept = socket[KEPT]
  const total = (kept?.length ?? 0) + read.length
  if (kept === undefined && read.length <= MAX_KEPT) {
    // getCurrentBuffer() returns a copy of the read: its own memory, of its own size.
    socket[KEPT] = read
  } else {
    const joined = Buffer.allocUnsafeSlow(Math.min(total, MAX_KEPT))
    const fromRead = Math.min(read.length, joined.length)
    const fromKept = joined.length - fromRead
    if (kept !== undefined && fromKept > 0) kept.copy(joined, 0, kept.length - fromKept)
    read.copy(joined, fromKept, read.length - fromRead)
    socket[KEPT] = joined
  }
  if (socket[WATCHED] !== true) {
    socket[WATCHED] = true
    socket.once('close', () => { free(socket) })
  }
}

/**
 * For the server's 'connection' event (after Node's own listener, which gives the socket its
 * parser): keeps the bytes of every read that ends inside a request head. Returns whether the
 * parser could be watched.
 */
export function keepHeadBytes (socket: Socket): boolean {
  const parser: unknown = (socket as Socket & { parser?: unknown }).parser
  if (!isNodeParser(parser)) return false
  const slot = parser.constructor.kOnExecute
  const onExecute = typeof slot === 'number' ? parser[slot] : undefined
  if (typeof slot !== 'number' || typeof onExecute !== 'function') return false
  const keeping = socket as KeepingSocket
  parser[slot] = function onExecuteKeepingHead (this: unknown, ret: unknown) {
    // An error is handed to 'clientError' by Node's callback, with this read as its rawPacket:
    // the rejection takes what is kept (takeHeadBytes); the parser reports every later read as an
    // error again, and those are not kept.
    if (!(ret instanceof Error)) {
      if (!parser.headersCompleted()) keep(keeping, parser.getCurrentBuffer())
      else if (keeping[KEPT] !== undefined) free(keeping)
    }
    return (onExecute as (this: unknown, ret: unknown) => unknown).call(this, ret)
  }
  return true
}

/** The bytes kept of the connection's current head (before the read being parsed), now forgotten. */
export function takeHeadBytes (socket: Socket): Buffer | undefined {
  const keeping = socket as KeepingSocket
  const kept = keeping[KEPT]
  if (kept !== undefined) free(keeping)
  return kept
}

/** How many bytes are kept for the connection (for tests of the bounds). */
export function keptHeadBytes (socket: Socket): number {
  return (socket as KeepingSocket)[KEPT]?.length ?? 0
}
