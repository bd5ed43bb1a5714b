// The panels as a store of the release before 29 November 2026 holds them: an object by panel name,
// each panel's data without what the profile's row holds (the panels' toStored then). Tests write
// this form into a store and check that it reads back as the code before showed it.

/** What each panel's toStored left of its data (the row held the rest); the logs and timeline stored records already, and the environment is per process. */
export const STORED_BEFORE: Readonly<Record<string, (data: any) => unknown>> = {
  request: ({ method: _method, url: _url, route: _route, ...kept }) => {
    const { statusCode: _statusCode, statusText: _statusText, ...response } = kept.response
    return { ...kept, response }
  },
  performance: ({ totalMs: _totalMs, ...kept }) => kept,
  exception: data => {
    if (data === null) return null
    const { statusCode: _statusCode, statusText: _statusText, ...kept } = data
    return kept
  },
  router: data => data.matched === null ? data : { ...data, matched: { method: data.matched.method } },
  db: ({ queryCount: _queryCount, queryMs: _queryMs, ...kept }) => kept
}
