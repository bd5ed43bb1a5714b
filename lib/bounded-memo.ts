// A memo of a pure function of short strings, bounded in entries and in characters, whatever the
// inputs: hostile distinct values (a scanner's URLs, generated field names) evict, they never grow
// it. The writer thread redacts the same texts profile after profile (a header's value, an SQL
// text, a URL, a field's name): remembered, each is judged once while it keeps coming back.
//
// Two generations rather than a linked list: an entry is looked up in the young one, then in the
// old one (and copied into the young one); when the young one is full it becomes the old one and
// the old one is dropped. What was used within the last half of the bound stays: the eviction of
// an LRU, at the cost of one Map lookup a hit.

export interface MemoBounds {
  /** Entries held at most (both generations). */
  entries: number
  /** Characters of keys and values held at most (both generations); each entry counts its key's length and `charsOf` its value. */
  chars: number
  /** A key longer than this is never remembered (its value is computed each time). */
  maxKeyChars: number
}

export class BoundedMemo<V> {
  private young = new Map<string, V>()
  private old = new Map<string, V>()
  private youngChars = 0
  private oldChars = 0
  private readonly entriesPerGeneration: number
  private readonly charsPerGeneration: number

  constructor (private readonly bounds: MemoBounds, private readonly charsOf: (value: V) => number = () => 0) {
    this.entriesPerGeneration = Math.max(1, Math.floor(bounds.entries / 2))
    this.charsPerGeneration = Math.floor(bounds.chars / 2)
  }

  /** `compute(key)`, remembered while `key` keeps coming back; `compute` must depend on `key` alone. */
  get (key: string, compute: (key: string) => V): V {
    if (key.length > this.bounds.maxKeyChars) return compute(key)
    const young = this.young.get(key)
    if (young !== undefined) return young
    const old = this.old.get(key)
    const value = old !== undefined ? old : compute(key)
    this.remember(key, value)
    return value
  }

  /** Entries held now (both generations; a key promoted from the old one counts twice until that one is dropped). */
  get size (): number {
    return this.young.size + this.old.size
  }

  /** Characters held now, as the bound counts them. */
  get chars (): number {
    return this.youngChars + this.oldChars
  }

  private remember (key: string, value: V): void {
    const chars = key.length + this.charsOf(value)
    if (chars > this.charsPerGeneration) return
    if (this.young.size >= this.entriesPerGeneration || this.youngChars + chars > this.charsPerGeneration) {
      this.old = this.young
      this.oldChars = this.youngChars
      this.young = new Map()
      this.youngChars = 0
    }
    this.young.set(key, value)
    this.youngChars += chars
  }
}
