/** A seeded pseudo-random source in [0, 1) (xorshift32): the same sequence for the same seed. */
export function seededRandom (seed: number): () => number {
  let state = (seed >>> 0) || 1
  return () => {
    state ^= state << 13
    state ^= state >>> 17
    state ^= state << 5
    state >>>= 0
    return state / 4294967296
  }
}
