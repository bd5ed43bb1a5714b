// The writer's work, whichever thread runs it: owns the store's write connection, shapes and
// writes the batches the request thread sends, and prunes in the background.
// The store is opened lazily: a store that cannot be opened yet (a read-only or missing folder,
// a database server that is down) fails each write with its reason until it can, and then works
// like any other. Requests are handled one at a time, in the order they came.
import { Redactor } from '../../../lib/redact.js'
import { collectProcessPanels, type ProcessRecord } from './process-panels.js'
import { shapeProfile } from './shape.js'
import type { QueuedProfile } from '../capture/capture.js'
import type { StoreWriter } from '../engine/contract.js'
import type { WriterMessage, WriterRequest, WriterSettings } from '../runtime/writer-protocol.js'
import { isOpenFault, openStoreWriter } from '../engine/open-writer.js'
import { statisticsOf } from '../runtime/statistics-columns.js'
import { unpackRuns } from '../panels/timeline/run-slab.js'
import { unpackStatements } from '../panels/db/unpack-statements.js'
import { unpackLines } from '../panels/logs/unpack-lines.js'
import { writeBatch, type BatchOutcome, type SetAside } from './write-batch.js'
import { startProfileExport, type StoredForExport } from '../export/otlp/profile-export.js'

/** The profiles of a batch that are in the store now: not rejected, set aside or left to be retried (offered when they are written). */
function storedOf (shaped: StoredForExport[], outcome: BatchOutcome): StoredForExport[] {
  const notStored = new Set<string>([...outcome.rejected, ...outcome.setAside.map(aside => aside.token), ...(outcome.ok ? [] : outcome.retry)])
  return notStored.size === 0 ? shaped : shaped.filter(profile => !notStored.has(profile.record.token))
}

/** Takes one request; the promise resolves once it has been answered (it never rejects: failures are answers). */
export type WriterService = (request: WriterRequest) => Promise<void>

/** Starts the writer's work with `settings`; everything it has to say goes through `send`. */
export function startWriterService (settings: WriterSettings, send: (message: WriterMessage) => void): WriterService {
  const events = {
    onDeleted: (tokens: string[], count: number) => { send({ type: 'deleted', tokens, count }) },
    onError: (message: string) => { send({ type: 'error', message }) },
    onTaken: (tokens: string[]) => { send({ type: 'taken', tokens }) },
    onBound: (reason: string | null) => { send({ type: 'bound', reason }) }
  }
  let store: StoreWriter | null = null
  // Remembers what it judged: the same headers, statements and URLs come back profile after profile.
  const redactor = new Redactor(settings.redaction, { memo: true })
  // Profiles just stored are sent out as traces from here, never holding up the next write.
  const profileExport = settings.export === undefined ? null : startProfileExport(settings.export, state => { send({ type: 'export', state }) }, state => { send({ type: 'export', state, first: true }) })
  // Collected at the first capture (a failure is reported, and the profiles go without them).
  let processPanels: ProcessRecord | null | undefined = settings.process === undefined ? null : undefined

  function processPanelsOnce (): ProcessRecord | null {
    if (processPanels !== undefined) return processPanels
    try {
      processPanels = collectProcessPanels(settings.process as NonNullable<typeof settings.process>, redactor)
    } catch (err) {
      processPanels = null
      send({ type: 'error', message: `the per-process panels could not be collected: ${(err as Error).message}` })
    }
    return processPanels
  }

  /** The batch's captures shaped into profiles (with their panels as collected); one that cannot be shaped is left out and reported. */
  function shapeBatch (batch: QueuedProfile[], unshaped: SetAside[]): StoredForExport[] {
    const records: StoredForExport[] = []
    for (const item of batch) {
      if (!('kind' in item)) {
        records.push({ record: item, panels: null })
        continue
      }
      try {
        const shaped = shapeProfile(item, redactor, processPanelsOnce())
        // The collected panels are the export's: without it they go now, not held (and copied by
        // every scavenge) while the rest of the batch is shaped and written.
        records.push(profileExport === null ? { record: shaped.record, panels: null } : shaped)
      } catch (err) {
        unshaped.push({ token: item.token, reason: `a profile could not be collected: ${(err as Error).message}` })
      }
    }
    return records
  }

  async function openStore (): Promise<StoreWriter> {
    if (store !== null) return store
    const { target, deployment, retention, retentionIntervalMs } = settings
    store = await openStoreWriter(target, deployment, retention, retentionIntervalMs, events)
    return store
  }

  async function handle (request: WriterRequest): Promise<void> {
    try {
      switch (request.type) {
        case 'write': {
          const writer = await openStore()
          const unshaped: SetAside[] = []
          unpackRuns(request.batch, request.runs)
          unpackStatements(request.batch)
          unpackLines(request.batch)
          const shaped = shapeBatch(request.batch, unshaped)
          const outcome = await writeBatch(writer, shaped.map(profile => profile.record), statisticsOf(request.statistics), request.stamp, request.missing)
          if (profileExport !== null) profileExport.offer(storedOf(shaped, outcome))
          const settled = { count: writer.count, written: outcome.written, rejected: outcome.rejected, unshaped: [...unshaped, ...outcome.setAside], statisticsLost: outcome.statisticsLost }
          if (outcome.ok) send({ type: 'done', id: request.id, ...settled })
          else send({ type: 'done', id: request.id, ...settled, error: (outcome.error as Error).message, fault: writer.isFault(outcome.error), retry: outcome.retry, statisticsSettled: outcome.statisticsSettled })
          break
        }
        case 'prune': {
          const writer = await openStore()
          await writer.prune(request.now)
          send({ type: 'done', id: request.id, count: writer.count })
          break
        }
        case 'close':
          await Promise.all([store?.close(), profileExport?.close()])
          send({ type: 'done', id: request.id, count: store?.count ?? 0 })
          break
      }
    } catch (err) {
      const fault = store === null ? isOpenFault(settings.target, err) : store.isFault(err)
      send({ type: 'done', id: request.id, count: store?.count ?? 0, error: (err as Error).message, fault })
    }
  }

  let queue: Promise<void> = openStore().then(() => {}, (err: unknown) => { send({ type: 'error', message: (err as Error).message }) })
  return async request => {
    queue = queue.then(async () => { await handle(request) })
    await queue
  }
}
