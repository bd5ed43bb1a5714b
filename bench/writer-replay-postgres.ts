// The database server's CPU a stored profile on the PostgreSQL store, A against B (issue 38): the
// seed-like mix recorded once as the writer receives it (writer-record.ts), replayed by both builds'
// writer services into databases of their own on one throwaway cluster, taking the batches in turn
// (the order alternating), after a warm-up on other databases. Each build's server CPU is what the
// backends connected to its database used (/proc/<pid>/schedstat: nanoseconds on a CPU), its writer's
// the main thread's around its own calls. No server, no load generator, no request thread.
//   node dist-bench/bench/writer-replay-postgres.js <recording> <root A> <root B> [rounds]
//     [--record=requests] [--sample=0.01] [--statements] [--explain=<log file>]
// Each root is a package folder with a dist/ built by its revision (npm run build:test).
// --statements: pg_stat_statements of the last round, each build's statements by total time.
// --explain: every statement's plan, timed, with its buffers (auto_explain), in the server's log, copied there.
import { execFile } from 'node:child_process'
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { promisify } from 'node:util'
import { deserialize } from 'node:v8'
import { packageRoot } from '../paths.js'
import type { WriterMessage, WriterRequest, WriterSettings } from '../plugins/profiler/runtime/writer-protocol.js'
import type { WriterService } from '../plugins/profiler/writer/writer-service.js'
import { startThrowawayCluster } from '../test/helpers/throwaway-cluster.js'
import { median } from './stats.js'
import { mainThreadNs } from './thread-cpu.js'

const run = promisify(execFile)
const args = process.argv.slice(2).filter(arg => !arg.startsWith('--'))
const option = (name: string): string | undefined => process.argv.find(arg => arg.startsWith(`--${name}=`))?.split('=')[1]
const [file = '', rootA = '', rootB = '', roundsArg = '3'] = args
const rounds = Number(roundsArg)
const statements = process.argv.includes('--statements')
const WARMUP_BATCHES = 40

if (option('record') !== undefined || !existsSync(file)) {
  const { stdout } = await run(process.execPath, [join(packageRoot, 'dist-bench', 'bench', 'writer-record.js'), file, option('record') ?? '20000', '100', option('sample') ?? '1'], { maxBuffer: 1024 * 1024 })
  process.stdout.write(`recorded: ${stdout.trim()}\n`)
}
const recording = deserialize(readFileSync(file)) as { settings: Omit<WriterSettings, 'target'>, requests: Buffer[] }

/** Nanoseconds on a CPU of each backend connected to `database` (its command line names it). */
function backendsNs (database: string): Map<string, number> {
  const found = new Map<string, number>()
  for (const pid of readdirSync('/proc').filter(name => /^\d+$/.test(name))) {
    try {
      const words = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split(' ')
      if (words[0] !== 'postgres:' || words[2] !== database) continue
      found.set(pid, Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]))
    } catch {
      // ended between the listing and the read
    }
  }
  return found
}

interface Replay { database: string, service: WriterService, written: number, writerNs: number, seen: Map<string, number>, startNs: Map<string, number> }

/** The server CPU of a replay's database since it started, by the last look at each backend. */
function look (replay: Replay): void {
  for (const [pid, ns] of backendsNs(replay.database)) {
    if (!replay.startNs.has(pid)) replay.startNs.set(pid, 0)
    replay.seen.set(pid, ns)
  }
}
const serverNs = (replay: Replay): number => [...replay.seen].reduce((sum, [pid, ns]) => sum + ns - (replay.startNs.get(pid) ?? 0), 0)

const dir = mkdtempSync(join(tmpdir(), 'bench-writer-replay-pg-'))
const cluster = await startThrowawayCluster(dir)
try {
  const explainTo = option('explain')
  const libraries = [...(statements ? ['pg_stat_statements'] : []), ...(explainTo === undefined ? [] : ['auto_explain'])]
  if (libraries.length > 0) {
    await cluster.query(`ALTER SYSTEM SET shared_preload_libraries = '${libraries.join(',')}'`)
    await cluster.stop()
    await cluster.start()
  }
  if (statements) {
    await cluster.query('CREATE EXTENSION pg_stat_statements')
    await cluster.query('ALTER SYSTEM SET pg_stat_statements.track_planning = on')
    await cluster.query('SELECT pg_reload_conf()')
  }
  if (explainTo !== undefined) {
    // Every statement's plan with its timings and buffers, into the server's log (copied to the file given).
    for (const setting of ['auto_explain.log_min_duration = 0', 'auto_explain.log_analyze = on', 'auto_explain.log_buffers = on']) {
      await cluster.query(`ALTER SYSTEM SET ${setting}`)
    }
    await cluster.query('SELECT pg_reload_conf()')
  }

  const start = async (root: string, database: string): Promise<Replay> => {
    const url = await cluster.createDatabase(database)
    const { startWriterService } = await import(pathToFileURL(join(root, 'dist', 'plugins', 'profiler', 'writer', 'writer-service.js')).href) as { startWriterService: (settings: WriterSettings, send: (message: WriterMessage) => void) => WriterService }
    const replay: Replay = { database, service: async () => {}, written: 0, writerNs: 0, seen: new Map(), startNs: new Map() }
    replay.service = startWriterService({ ...recording.settings, target: { engine: 'postgres', url } }, message => {
      if (message.type === 'done' && message.error !== undefined) throw new Error(message.error)
      if (message.type === 'error') throw new Error(message.message)
      if (message.type === 'done') replay.written += message.written ?? 0
    })
    await replay.service({ id: 0, type: 'prune', now: Date.now() })
    return replay
  }

  const replayAll = async (name: string, batches: number): Promise<Replay[]> => {
    const replays = [await start(rootA, `${name}_a`), await start(rootB, `${name}_b`)]
    const requests = replays.map(() => recording.requests.slice(0, batches).map(buffer => deserialize(buffer) as WriterRequest))
    if (statements) await cluster.query('SELECT pg_stat_statements_reset()')
    for (let batch = 0; batch < batches; batch++) {
      const order = batch % 2 === 0 ? [0, 1] : [1, 0]
      for (const index of order) {
        const replay = replays[index] as Replay
        const started = mainThreadNs()
        await replay.service((requests[index] as WriterRequest[])[batch] as WriterRequest)
        replay.writerNs += mainThreadNs() - started
        if (batch > 0) {
          look(replay)
          continue
        }
        // What opening and the first batch cost (the migrations, the partitions made, the backends'
        // caches filled) is not a running server's: counted from the second batch on.
        replay.writerNs = 0
        for (const [pid, ns] of backendsNs(replay.database)) replay.startNs.set(pid, ns)
      }
    }
    for (const replay of replays) {
      look(replay)
      await replay.service({ id: 0, type: 'close' })
    }
    return replays
  }

  const totals = recording.requests.map(buffer => deserialize(buffer) as { batch: unknown[], statistics: { pair: Uint32Array } })
  // The requests counted: those of the second batch on.
  const requestCount = totals.slice(1).reduce((sum, r) => sum + r.batch.length + r.statistics.pair.length, 0)
  process.stdout.write(`${totals.length} batches, ${requestCount} requests counted, ${totals.slice(1).reduce((sum, r) => sum + r.batch.length, 0)} kept\n`)
  const server: Record<'A' | 'B', number[]> = { A: [], B: [] }
  const writer: Record<'A' | 'B', number[]> = { A: [], B: [] }
  for (let round = 0; round < rounds; round++) {
    await replayAll(`warm${round}`, WARMUP_BATCHES)
    const [a, b] = await replayAll(`fresh${round}`, recording.requests.length) as [Replay, Replay]
    server.A.push(serverNs(a) / 1000 / requestCount)
    server.B.push(serverNs(b) / 1000 / requestCount)
    writer.A.push(a.writerNs / 1000 / requestCount)
    writer.B.push(b.writerNs / 1000 / requestCount)
    process.stdout.write(`round ${round + 1}: server A ${server.A.at(-1)?.toFixed(2)}, B ${server.B.at(-1)?.toFixed(2)} µs a request; writer A ${writer.A.at(-1)?.toFixed(2)}, B ${writer.B.at(-1)?.toFixed(2)} (${a.written} and ${b.written} profiles)\n`)
  }
  const summary = (what: string, a: number[], b: number[]): string => {
    const differences = b.map((value, round) => value - (a[round] as number))
    return `${what}: median A ${median(a).toFixed(2)}, B ${median(b).toFixed(2)} µs a request; B - A per round ${differences.map(d => d.toFixed(2)).join(', ')}\n`
  }
  process.stdout.write(summary('database server', server.A, server.B))
  process.stdout.write(summary('writer thread', writer.A, writer.B))
  if (statements) {
    for (const database of [`fresh${rounds - 1}_a`, `fresh${rounds - 1}_b`]) {
      // Grouped by the statement's start: a batch's store statement has a text for each size.
      const rows = await cluster.query<{ calls: string, ms: number, rows: string, query: string }>(`SELECT sum(s.calls) AS calls, round(sum(s.total_exec_time + s.total_plan_time)::numeric, 1)::float8 AS ms,
          round(sum(s.total_plan_time)::numeric, 1)::float8 AS plan, sum(s.rows) AS rows, left(regexp_replace(s.query, '\\s+', ' ', 'g'), 90) AS query
        FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid WHERE d.datname = $1 GROUP BY 5 ORDER BY 2 DESC LIMIT 16`, [database])
      process.stdout.write(`-- ${database}\n${rows.map(r => `${String(r.ms).padStart(9)} ms (plan ${String((r as unknown as { plan: number }).plan)}) ${String(r.calls).padStart(6)} calls ${String(r.rows).padStart(7)} rows  ${r.query}`).join('\n')}\n`)
    }
  }
} finally {
  const explainTo = option('explain')
  if (explainTo !== undefined) copyFileSync(join(dir, 'server.log'), explainTo)
  await cluster.remove()
  rmSync(dir, { recursive: true, force: true })
}
