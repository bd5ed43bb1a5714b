import { randomFillSync } from 'node:crypto'

export const TOKEN_PATTERN = /^[0-9a-f]{6}$/
const TOKEN_SPACE = 0x1000000

// Random bytes come from the cryptographic source in blocks: one call per 4,096 tokens.
const pool = Buffer.alloc(3 * 4096)
let poolOffset = pool.length

/** 6 lowercase hex characters (3 random bytes from a cryptographic source), as Symfony's tokens. */
function randomToken (): string {
  if (poolOffset >= pool.length) {
    randomFillSync(pool)
    poolOffset = 0
  }
  const value = ((pool[poolOffset] ?? 0) << 16) | ((pool[poolOffset + 1] ?? 0) << 8) | (pool[poolOffset + 2] ?? 0)
  poolOffset += 3
  return value.toString(16).padStart(6, '0')
}

/** A token that no stored or queued profile has: a collision picks another. */
export function uniqueToken (isTaken: (token: string) => boolean, source: () => string = randomToken): string {
  for (let attempt = 0; attempt < 1000; attempt++) {
    const token = source()
    if (!isTaken(token)) return token
  }
  throw new Error('no free profile token after 1000 attempts: the store is nearly full of tokens')
}

/**
 * Which of the 16.7 million tokens are in use, one bit each (2 MiB): answers "is it taken?"
 * without a database read on the request path.
 */
export class TokenSet {
  private readonly bits = new Uint8Array(TOKEN_SPACE / 8)

  has (token: string): boolean {
    const n = Number.parseInt(token, 16)
    return ((this.bits[n >> 3] ?? 0) & (1 << (n & 7))) !== 0
  }

  add (token: string): void {
    const n = Number.parseInt(token, 16)
    this.bits[n >> 3] = (this.bits[n >> 3] ?? 0) | (1 << (n & 7))
  }

  delete (token: string): void {
    const n = Number.parseInt(token, 16)
    this.bits[n >> 3] = (this.bits[n >> 3] ?? 0) & ~(1 << (n & 7))
  }
}
