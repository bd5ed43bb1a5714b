/** A URL, or null when the text does not parse as one (Node 20 has no URL.parse). */
export function parseUrl (text: string): URL | null {
  try {
    return new URL(text)
  } catch {
    return null
  }
}
