import { STATUS_CODES } from 'node:http'
import { storedBody } from '../body-preview.js'
import type { Collector } from './collector.js'

/** Request / Response: query, body, headers, route and params; response status, headers and JSON body. */
export const requestCollector: Collector = {
  name: 'request',
  label: 'Request / Response',
  collect ({ capture, url, responseBody, redactor }) {
    const statusCode = capture.statusCode
    return {
      method: capture.method,
      url,
      route: capture.route,
      params: redactor.fields(capture.params),
      query: redactor.fields(capture.query),
      body: capture.shapedBody !== undefined ? capture.shapedBody : storedBody(redactor.fields(capture.body)),
      requestHeaders: redactor.headers(capture.requestHeaders),
      response: {
        statusCode,
        statusText: STATUS_CODES[statusCode] ?? '',
        headers: redactor.headers(capture.responseHeaders),
        body: responseBody === undefined ? null : redactor.fields(responseBody)
      }
    }
  }
}
