/** A database URL as logs and pages may show it: the password (if any) replaced by ***. */
export function withoutPassword (url: string): string {
  try {
    const parsed = new URL(url)
    if (parsed.password !== '') parsed.password = '***'
    return parsed.toString()
  } catch {
    return '(a database URL that cannot be parsed)'
  }
}
