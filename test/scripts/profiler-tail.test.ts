import t from 'tap'
import { postJson } from '../helpers/app.js'
import { listProfiles } from '../helpers/profiler.js'
import { CLI, usageError } from '../helpers/profiler-cli.js'
import { recordedApp } from '../helpers/profile-store.js'
import { spawnNode } from '../helpers/run.js'

t.test('tail: the newest profiles, then each new one as the running service stores it, until interrupted', async t => {
  const { app, env } = await recordedApp(t)
  for (const json of [true, false]) {
    const newestTwo = (await listProfiles(app, 'limit=2')).map(profile => profile.token).reverse()
    const child = spawnNode(CLI, ['tail', '--limit', '2', '--interval', '100', ...(json ? ['--json'] : [])], env)
    let stdout = ''
    let stderr = ''
    let exitCode: number | null | undefined
    child.stdout.on('data', chunk => { stdout += String(chunk) })
    child.stderr.on('data', chunk => { stderr += String(chunk) })
    const exited = new Promise<number | null>(resolve => child.once('exit', code => { exitCode = code; resolve(code) }))
    /** Waits until `count` lines are out (tap's timeout bounds the wait). */
    const printed = async (count: number): Promise<void> => {
      while (stdout.trimEnd().split('\n').length < count) {
        if (exitCode !== undefined) throw new Error(`tail exited (${String(exitCode)}): ${stderr}`)
        await new Promise(resolve => setTimeout(resolve, 20))
      }
    }
    const header = json ? 0 : 1
    await printed(header + 2)
    const fresh = []
    for (const code of ['ADV1002', 'NOPE2', 'ADV1003']) fresh.push(String((await postJson(app, '/ccenter/getConseillerByCode', { code })).headers['x-debug-token']))
    await app.profileStore.flush()
    await printed(header + 5)
    child.kill('SIGINT')
    t.equal(await exited, 0, 'Ctrl-C ends it with exit code 0')
    t.equal(stderr, '')
    const lines = stdout.trimEnd().split('\n')
    t.equal(lines.length, header + 5, 'nothing printed twice')
    const printedTokens = json ? lines.map(line => JSON.parse(line).token) : lines.slice(1).map(line => line.split(/\s+/)[0])
    t.same(printedTokens, [...newestTwo, ...fresh], 'the newest two, then the new ones, oldest first')
    if (json) t.match(JSON.parse(lines[4] ?? ''), { status: 200, method: 'POST', url: 'http://localhost/ccenter/getConseillerByCode' })
    else t.match(lines[0], /^Token\s+Time\s+Status/)
  }
  await usageError(t, ['tail', '--interval', '5'], env, 'Invalid "--interval" parameter "5": expected milliseconds from 50 to 60000')
  await usageError(t, ['tail', '--status', '9999'], env, 'Invalid "--status" parameter "9999": expected an HTTP status code from 100 to 599')
})
