import { performance } from 'node:perf_hooks'
import { getHeapStatistics } from 'node:v8'
import type { RejectedRequest, RejectionAnswer } from '../../rejected-requests/index.js'
import { captureError, profileDuration } from '../capture/capture.js'
import { displayIp, type RecorderOptions } from './recorder.js'
import { keptByRule, sampleDraw } from './sampling.js'

type RejectionOptions = Pick<RecorderOptions, 'store' | 'tokenSource' | 'sampling'>

/**
 * The recorder of rejected requests (rejected-requests' addRejectionRecorder). A rejection is the
 * client's error, sampled like any client error (issue #37: a malformed head once made every
 * request kept): kept when the sample's draw keeps it (or, would one be a server error, by that
 * rule), else counted in the statistics only, exactly as a request left out. The slow rule does not
 * apply: its time is the wait for the connection's earlier answers, which a slow reader holds, and
 * the service did nothing of its own for it. The keep header is not read from a head the parser
 * refused: the login limiter counts requests Fastify has.
 */
export function rejectionRecorder (options: RejectionOptions): (rejected: RejectedRequest, answer: RejectionAnswer) => Record<string, string> {
  const draw = sampleDraw(options.sampling)
  const { store } = options
  return (rejected, answer) => {
    if (draw() || keptByRule(answer.statusCode, true, null, options.sampling)) return recordRejection(options, rejected, answer)
    countRejection(store, rejected, answer)
    return {}
  }
}

/** A rejection counted in the statistics only: the same values a kept one's capture gives them (no route, its method and status). */
function countRejection (store: RejectionOptions['store'], rejected: RejectedRequest, answer: RejectionAnswer): void {
  const totalMs = performance.now() - rejected.seenAt
  try {
    store.enqueueStatistics(Math.floor(Date.now() - totalMs), rejected.method, null, answer.statusCode, profileDuration(totalMs))
  } catch (err) {
    store.dropStatistics(`a rejected request could not be counted: ${(err as Error).message}`)
  }
}

/**
 * A request that never entered Fastify's lifecycle (the HTTP parser rejected it, or CONNECT) as a
 * capture like any other: the same token, the same bounded queue (a flood of rejections is
 * dropped and counted like any burst), the same panels (no route, no body, the error and the
 * parser's reason in the exception panel). Returns the X-Debug-Token headers for the answer, or
 * none when the profile was not queued.
 */
function recordRejection ({ store, tokenSource }: RejectionOptions, rejected: RejectedRequest, answer: RejectionAnswer): Record<string, string> {
  let token: string | null = null
  try {
    token = store.claimToken(tokenSource)
    const tokenHeaders = { 'x-debug-token': token, 'x-debug-token-link': `${rejected.origin}/_profiler/${token}` }
    const totalMs = performance.now() - rejected.seenAt
    const queued = store.enqueue({
      kind: 'capture',
      id: store.nextId(Date.now() - totalMs),
      token,
      ip: displayIp(rejected.ip),
      method: rejected.method,
      // Always scheme://host/path: a target that could not be read is the root.
      rawUrl: rejected.origin + (rejected.target === '' ? '/' : rejected.target),
      statusCode: answer.statusCode,
      originMs: rejected.seenAt,
      totalMs,
      handlerStartMs: null,
      sendStartMs: totalMs,
      route: null,
      matched: null,
      routingFailure: null,
      params: {},
      query: {},
      body: undefined,
      bodyBytes: 0,
      shapedBody: undefined,
      unparsedBody: undefined,
      requestHeaders: rejected.headers,
      responseHeaders: { ...answer.headers, ...tokenHeaders },
      responseText: answer.json ? answer.body : undefined,
      error: captureError(rejected.error, false),
      heapUsedBytes: getHeapStatistics().used_heap_size,
      droppedProfiles: store.dropped
    })
    return queued ? tokenHeaders : {}
  } catch (err) {
    if (token !== null) store.releaseToken(token)
    store.drop(`a rejected request could not be profiled: ${(err as Error).message}`)
    // Its request is still counted in the statistics (issue 37), as a request no route matched.
    countRejection(store, rejected, answer)
    return {}
  }
}
