/** The i-th distinct path of a scanner: about 200 characters, each a new URL for the trigram index (issue #20). */
export function scannerPath (i: number): string {
  let tail = ''
  let x = i * 2654435761 % 4294967296
  while (tail.length < 200) {
    x = (x * 1103515245 + 12345) % 2147483648
    tail += x.toString(36)
  }
  return `/u/${i}/${tail.slice(0, 200)}`
}
