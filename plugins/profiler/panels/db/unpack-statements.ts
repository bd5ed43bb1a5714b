// In the writer: each capture's statement log, which crosses flat (lib/statement-log.ts), rebuilt
// as the statement objects the panel reads (collect.ts), before the batch is shaped.
import type { QueuedProfile } from '../../capture/capture.js'
import { capturedStatements, type ClonedStatementLog } from '../../../../lib/statement-log.js'
import { takenIndex } from '../probes.js'
import { dbPanel } from './index.js'

const isFlat = (taken: unknown): taken is ClonedStatementLog => typeof taken === 'object' && taken !== null && 'kept' in taken

export function unpackStatements (batch: readonly QueuedProfile[]): void {
  const at = takenIndex(dbPanel)
  for (const profile of batch) {
    if (!('kind' in profile) || profile.taken === undefined) continue
    const taken = profile.taken[at]
    if (isFlat(taken)) profile.taken[at] = capturedStatements(taken)
  }
}
