import t from 'tap'
import { openReadOnlyStore, type ReadOnlyStore } from '../../plugins/profiler/engine/open-read-only.js'
import { run } from '../../plugins/profiler/cli/cli.js'
import { tailProfiles } from '../../plugins/profiler/cli/tail.js'
import { postJson } from '../helpers/app.js'
import { listProfiles } from '../helpers/profiler.js'
import { CLI, usageError } from '../helpers/profiler-cli.js'
import { recordedApp } from '../helpers/profile-store.js'
import { collected, spawnNode } from '../helpers/run.js'
import { waitFor } from '../helpers/wait-for.js'

/** A running `tail`: what it printed so far, whether it ended, and Ctrl-C (resolves with the exit code). */
interface Tail { stdout: () => string, stderr: () => string, exitCode: () => number | null | undefined, interrupt: () => Promise<number | null> }

/** The built bin as a child process; Ctrl-C is a real SIGINT. */
function tailBin (args: string[], env: Record<string, string>): Tail {
  const child = spawnNode(CLI, args, env)
  let stdout = ''
  let stderr = ''
  let exitCode: number | null | undefined
  child.stdout.on('data', chunk => { stdout += String(chunk) })
  child.stderr.on('data', chunk => { stderr += String(chunk) })
  const exited = new Promise<number | null>(resolve => child.once('exit', code => { exitCode = code; resolve(code) }))
  return { stdout: () => stdout, stderr: () => stderr, exitCode: () => exitCode, interrupt: async () => { child.kill('SIGINT'); return await exited } }
}

/** The same program in-process; Ctrl-C is the signal the bin would abort. */
function tailInProcess (args: string[], env: Record<string, string>): Tail {
  const stdout = collected()
  const stderr = collected()
  const stop = new AbortController()
  let exitCode: number | undefined
  const exited = run(args, { env, stdout: stdout.stream, stderr: stderr.stream, interrupted: () => stop.signal }).then(code => { exitCode = code; return code })
  return { stdout: stdout.text, stderr: stderr.text, exitCode: () => exitCode, interrupt: async () => { stop.abort(); return await exited } }
}

t.test('tail: the newest profiles, then each new one as the running service stores it, until interrupted', async t => {
  const { app, env } = await recordedApp(t)
  for (const { json, start } of [{ json: true, start: tailInProcess }, { json: false, start: tailBin }]) {
    const newestTwo = (await listProfiles(app, 'limit=2')).map(profile => profile.token).reverse()
    const tail = start(['tail', '--limit', '2', '--interval', '100', ...(json ? ['--json'] : [])], env)
    /** Waits until `count` lines are out; says what was printed if they never are. */
    const printed = async (count: number): Promise<void> => {
      await waitFor(() => {
        if (tail.exitCode() !== undefined) throw new Error(`tail exited (${String(tail.exitCode())}): ${tail.stderr()}`)
        return tail.stdout().trimEnd().split('\n').length >= count
      }, { timeoutMs: 30_000, intervalMs: 20, what: `${count} lines of tail` }).catch((err: Error) => {
        throw new Error(`${err.message}; printed: ${JSON.stringify(tail.stdout())}`)
      })
    }
    const header = json ? 0 : 1
    await printed(header + 2)
    const fresh = []
    for (const code of ['ADV1002', 'NOPE2', 'ADV1003']) fresh.push(String((await postJson(app, '/ccenter/getConseillerByCode', { code })).headers['x-debug-token']))
    await app.profileStore.flush()
    await printed(header + 5)
    t.equal(await tail.interrupt(), 0, 'Ctrl-C ends it with exit code 0')
    t.equal(tail.stderr(), '')
    const lines = tail.stdout().trimEnd().split('\n')
    t.equal(lines.length, header + 5, 'nothing printed twice')
    const printedTokens = json ? lines.map(line => JSON.parse(line).token) : lines.slice(1).map(line => line.split(/\s+/)[0])
    t.same(printedTokens, [...newestTwo, ...fresh], 'the newest two, then the new ones, oldest first')
    if (json) t.match(JSON.parse(lines[4] ?? ''), { status: 200, method: 'POST', url: 'http://localhost/ccenter/getConseillerByCode' })
    else t.match(lines[0], /^Token\s+Time\s+Status/)
  }
  await usageError(t, ['tail', '--interval', '5'], env, 'Invalid "--interval" parameter "5": expected milliseconds from 50 to 60000')
  await usageError(t, ['tail', '--status', '9999'], env, 'Invalid "--status" parameter "9999": expected an HTTP status code from 100 to 599')
})

// tail reads the store twice as it starts (what counts as seen, and the newest to print): a profile
// stored between those reads, or right after them, was once marked seen and never printed (beside
// CI's CPU hog the test above then waited for it until tap's timeout).
t.test('tail: a profile stored while tail starts is printed once, whichever of its first reads it follows', async t => {
  const { app } = await recordedApp(t)
  for (const storedAfterRead of [1, 2]) {
    const store = await openReadOnlyStore(app.config)
    t.teardown(async () => { await store.close() })
    let reads = 0
    const stored: string[] = []
    // The real store; the requests are stored (and committed) right after its nth read returns.
    const reader: ReadOnlyStore = {
      ...store,
      search: async filters => {
        const found = await store.search(filters)
        if (++reads === storedAfterRead) {
          for (const code of ['ADV1002', 'NOPE2', 'ADV1003']) stored.push(String((await postJson(app, '/ccenter/getConseillerByCode', { code })).headers['x-debug-token']))
          await app.profileStore.flush()
        }
        return found
      }
    }
    const printed: string[] = []
    const stop = new AbortController()
    const tailing = tailProfiles(reader, { filters: { type: 'request', limit: 2 }, intervalMs: 50, signal: stop.signal, print: profiles => printed.push(...profiles.map(profile => profile.token)) })
    // Two polls after the start's reads: what was left unseen is printed by the first.
    await waitFor(() => reads >= 4, { what: 'two polls after the start' })
    stop.abort()
    await tailing
    t.same(stored.map(token => printed.filter(each => each === token).length), [1, 1, 1], `stored after read ${storedAfterRead}: each printed once`)
    t.equal(new Set(printed).size, printed.length, 'nothing printed twice')
  }
})
