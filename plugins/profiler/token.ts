import { randomBytes } from 'node:crypto'

/** 6 lowercase hex characters from a cryptographic source (3 random bytes), as Symfony does. */
export function randomToken (): string {
  return randomBytes(3).toString('hex')
}

export const TOKEN_PATTERN = /^[0-9a-f]{6}$/

/** A token that no stored or queued profile has: a collision picks another. */
export function uniqueToken (isTaken: (token: string) => boolean, source: () => string = randomToken): string {
  for (let attempt = 0; attempt < 1000; attempt++) {
    const token = source()
    if (!isTaken(token)) return token
  }
  throw new Error('no free profile token after 1000 attempts: the store is nearly full of tokens')
}
