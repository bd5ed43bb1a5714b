import { TokenSet, uniqueToken } from '../token.js'
import { ID_SLOTS_PER_MS } from '../profile.js'

/**
 * Tokens and ids handed to new profiles on the request thread: the set of tokens in use (stored
 * or queued), and ids that sort by request start.
 */
export class Reservations {
  private readonly tokens = new TokenSet()
  private idCounter = 0

  /**
   * An id that sorts by request start: start_ms * 1024 + a rolling slot. Two requests that
   * start in the same millisecond get different slots; a rare clash is resolved when writing.
   */
  nextId (startMs: number): number {
    const slot = this.idCounter++ % ID_SLOTS_PER_MS
    return Math.floor(startMs) * ID_SLOTS_PER_MS + slot
  }

  isTaken (token: string): boolean {
    return this.tokens.has(token)
  }

  /** A token no queued or stored profile has, reserved: from `source` when given (tests), else drawn at random. */
  claim (source?: () => string): string {
    if (source === undefined) return this.tokens.takeRandom()
    const token = uniqueToken(candidate => this.tokens.has(candidate), source)
    this.tokens.add(token)
    return token
  }

  reserve (token: string): void {
    this.tokens.add(token)
  }

  release (token: string): void {
    this.tokens.delete(token)
  }
}
