import { randomFillSync } from 'node:crypto'

export const TOKEN_PATTERN = /^[0-9a-f]{6}$/
const TOKEN_SPACE = 0x1000000

// Random bytes come from the cryptographic source in blocks: one call per 4,096 tokens.
const pool = Buffer.alloc(3 * 4096)
let poolOffset = pool.length

/** Tries at a free token before giving up. */
const ATTEMPTS = 1000
const NO_FREE_TOKEN = `no free profile token after ${ATTEMPTS} attempts: the store is nearly full of tokens`

/** 3 random bytes from a cryptographic source, as a number below TOKEN_SPACE. */
function randomValue (): number {
  if (poolOffset >= pool.length) {
    randomFillSync(pool)
    poolOffset = 0
  }
  const value = ((pool[poolOffset] ?? 0) << 16) | ((pool[poolOffset + 1] ?? 0) << 8) | (pool[poolOffset + 2] ?? 0)
  poolOffset += 3
  return value
}

/** A token's text: 6 lowercase hex characters, as Symfony's tokens. */
const tokenText = (value: number): string => value.toString(16).padStart(6, '0')

/** A token that no stored or queued profile has, from `source` (tests pass a fixed sequence): a collision picks another. */
export function uniqueToken (isTaken: (token: string) => boolean, source: () => string): string {
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const token = source()
    if (!isTaken(token)) return token
  }
  throw new Error(NO_FREE_TOKEN)
}

/**
 * Which of the 16.7 million tokens are in use, one bit each (2 MiB): answers "is it taken?"
 * without a database read on the request path.
 */
export class TokenSet {
  private readonly bits = new Uint8Array(TOKEN_SPACE / 8)

  has (token: string): boolean {
    return this.hasValue(Number.parseInt(token, 16))
  }

  add (token: string): void {
    this.addValue(Number.parseInt(token, 16))
  }

  /**
   * A random token that was free, now taken: the bits are tested and set on the random number, and
   * the text made once (parsing the text back twice, and a closure a request, cost ~0.6 µs a kept
   * request on the request thread, measured with perf).
   */
  takeRandom (): string {
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      const value = randomValue()
      if (!this.hasValue(value)) {
        this.addValue(value)
        return tokenText(value)
      }
    }
    throw new Error(NO_FREE_TOKEN)
  }

  private hasValue (n: number): boolean {
    return ((this.bits[n >> 3] ?? 0) & (1 << (n & 7))) !== 0
  }

  private addValue (n: number): void {
    this.bits[n >> 3] = (this.bits[n >> 3] ?? 0) | (1 << (n & 7))
  }

  delete (token: string): void {
    const n = Number.parseInt(token, 16)
    this.bits[n >> 3] = (this.bits[n >> 3] ?? 0) & ~(1 << (n & 7))
  }
}
