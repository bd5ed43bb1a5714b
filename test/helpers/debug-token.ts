/** The token of the profile a response was recorded as (its X-Debug-Token header); throws when it carries none. */
export function tokenOf (res: { headers: Record<string, unknown> }): string {
  const token = res.headers['x-debug-token']
  if (typeof token !== 'string') throw new Error(`the response carries no X-Debug-Token (${String(token)})`)
  return token
}
