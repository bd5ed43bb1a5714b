// The reader worker: owns the read connection of a SQLite store and answers the request thread's
// SqliteReaderThread (reader-thread.ts). Searches of a scanner-sized store take tens of ms
// and a HAR export builds megabytes of JSON: here they never hold the request thread.
import { setPriority } from 'node:os'
import { parentPort, workerData } from 'node:worker_threads'
import type { StoreTarget } from '../contract.js'
import { copyError, type SqliteReaderAnswer, type SqliteReaderRequest } from './reader-protocol.js'
import { SqliteReader } from './reader.js'
import { nameThisThread } from '../../profiler-thread.js'

const READER_NICENESS = 10

const port = parentPort as NonNullable<typeof parentPort>
if (parentPort === null) throw new Error('engine/sqlite/reader-worker.ts runs as a worker thread')

// Named for `top -H`; and niced (Linux: a thread id is a pid to setpriority), so that on busy
// cores the request thread gets the CPU first and a page waits instead of the business routes.
const threadId = nameThisThread('profiler-reader')
try {
  if (threadId !== null) setPriority(threadId, READER_NICENESS)
} catch {}

const send = (answer: SqliteReaderAnswer): void => { port.postMessage(answer) }

let migrated: string | null = null
let reader: SqliteReader
try {
  reader = await SqliteReader.open(workerData as Extract<StoreTarget, { engine: 'sqlite' }>, message => { migrated = message })
  send({ type: 'opened', migrated })
} catch (err) {
  send({ type: 'open-failed', error: copyError(err) })
  port.close()
}

port.on('message', async (request: SqliteReaderRequest) => {
  try {
    const value = request.method === 'tokens'
      ? await tokens()
      : await (reader[request.method] as (...args: unknown[]) => Promise<unknown>)(...request.args)
    send({ type: 'done', id: request.id, value })
  } catch (err) {
    send({ type: 'failed', id: request.id, error: copyError(err) })
  }
  if (request.method === 'close') port.close()
})

async function tokens (): Promise<string[]> {
  const all: string[] = []
  await reader.eachToken(token => { all.push(token) })
  return all
}
