import { STATUS_CODES } from 'node:http'
import type { Panel } from '../panel.js'
import { collectRequest, recordRequest } from './collect.js'
import type { RequestSchema, StoredRequest } from './schema.js'
import { requestView } from './view.js'

export type { RequestData } from './schema.js'

/** Request / Response: what was asked and answered, with its cURL command. */
export const requestPanel: Panel<typeof RequestSchema, StoredRequest> = {
  name: 'request',
  label: 'Request / Response',
  description: 'query, parsed body, request headers, route params, response status/headers/JSON body',
  collect: collectRequest,
  // Stored without what the row holds: the method, URL, route and status (key order kept: the JSON answers show it).
  record: recordRequest,
  fromStored (stored, row) {
    return {
      method: row.method,
      url: row.url,
      route: row.route,
      ...stored,
      response: { statusCode: row.status, statusText: STATUS_CODES[row.status] ?? '', ...stored.response }
    }
  },
  view: requestView
}
