// In the writer: Fastify's own lines cross without their message, which their kind names
// (probe.ts: FASTIFY_MESSAGES); each gets it back here, before the batch is shaped, so that the
// panel reads the lines as the request thread once kept them.
import type { QueuedProfile } from '../../capture/capture.js'
import { takenIndex } from '../probes.js'
import { logsPanel } from './index.js'
import { FASTIFY_MESSAGES, LINE_SLOTS, type RequestLogs } from './probe.js'

export function unpackLines (batch: readonly QueuedProfile[]): void {
  const at = takenIndex(logsPanel)
  for (const profile of batch) {
    if (!('kind' in profile)) continue
    const lines = (profile.taken?.[at] as RequestLogs | undefined)?.lines
    if (lines === undefined) continue
    for (let line = 0; line + LINE_SLOTS <= lines.length; line += LINE_SLOTS) {
      // Only Fastify's own lines hold a number in the arguments' slot (their kind).
      const kind = lines[line + 3]
      if (typeof kind === 'number') lines[line + 2] = FASTIFY_MESSAGES[kind]
    }
  }
}
