import type { Readable, Writable } from 'node:stream'
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import { ErrorCode, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js'
import { readMessage, type RpcError } from './mcp-message.js'

/** The longest line read, in bytes (newline excluded): the SDK's own stdio bound, 10 MiB. */
const MAX_LINE_BYTES = 10 * 1024 * 1024

const NEWLINE = 0x0a

/**
 * MCP's stdio framing (one JSON-RPC message a line), in place of the SDK's StdioServerTransport,
 * which copies its whole buffer at every chunk and, once it would pass 10 MiB, throws and closes
 * itself for good while the process lives on (never answering again); and which drops every line
 * its schema refuses without an answer. Here every line is answered or handed to the server: a line over
 * MAX_LINE_BYTES is discarded as it streams in (memory stays bounded) and answered with an error
 * once its newline comes; text that is not a message gets the JSON-RPC error that fits.
 */
export class LineTransport implements Transport {
  onclose?: () => void
  onerror?: (error: Error) => void
  onmessage?: (message: JSONRPCMessage) => void

  /** The pieces of the line read so far, and their size in bytes (still counted once it is too long). */
  private pieces: Buffer[] = []
  private lineBytes = 0
  /** Set while the output waits for 'drain': one listener for all the writes waiting. */
  private drained?: Promise<void>

  constructor (private readonly input: Readable, private readonly output: Writable) {}

  private readonly onData = (chunk: Buffer | string): void => {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk
    let start = 0
    for (let end = bytes.indexOf(NEWLINE); end !== -1; end = bytes.indexOf(NEWLINE, start)) {
      this.take(bytes.subarray(start, end))
      this.endLine()
      start = end + 1
    }
    if (start < bytes.length) this.take(bytes.subarray(start))
  }

  private readonly onInputError = (error: Error): void => { this.onerror?.(error) }

  /** Keeps a piece of the current line while the line is within the bound; beyond it, only counts. */
  private take (piece: Buffer): void {
    this.lineBytes += piece.length
    if (this.lineBytes > MAX_LINE_BYTES) this.pieces = []
    else if (piece.length > 0) this.pieces.push(piece)
  }

  private endLine (): void {
    const bytes = this.lineBytes
    const pieces = this.pieces
    this.pieces = []
    this.lineBytes = 0
    if (bytes > MAX_LINE_BYTES) {
      this.answerError({
        id: null,
        code: ErrorCode.InvalidRequest,
        message: `Invalid Request: a message is one line of at most ${MAX_LINE_BYTES} bytes (10 MiB); this one had ${bytes} bytes and was discarded unread`
      })
      return
    }
    const read = readMessage(Buffer.concat(pieces, bytes).toString('utf8').replace(/\r$/, ''))
    if ('error' in read) this.answerError(read.error)
    else this.onmessage?.(read.message)
  }

  private answerError ({ id, code, message }: RpcError): void {
    this.write(JSON.stringify({ jsonrpc: '2.0', id, error: { code, message } }) + '\n').catch(error => this.onerror?.(error as Error))
  }

  /** Writes one line; while the client does not read its answers, its input waits too (so neither side's buffer grows). */
  private async write (line: string): Promise<void> {
    if (this.output.write(line)) return
    this.drained ??= new Promise<void>(resolve => {
      this.input.pause()
      this.output.once('drain', () => {
        this.drained = undefined
        this.input.resume()
        resolve()
      })
    })
    await this.drained
  }

  async start (): Promise<void> {
    this.input.on('data', this.onData)
    this.input.on('error', this.onInputError)
  }

  async send (message: JSONRPCMessage): Promise<void> {
    await this.write(JSON.stringify(message) + '\n')
  }

  async close (): Promise<void> {
    this.input.off('data', this.onData)
    this.input.off('error', this.onInputError)
    this.pieces = []
    this.onclose?.()
  }
}
