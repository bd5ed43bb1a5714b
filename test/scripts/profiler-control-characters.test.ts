// run-suite: shares a process
// Stored text must not drive the terminal: whatever a request held, no command of the CLI prints a
// C1 control character (U+0080-U+009F; U+009B is CSI, a whole escape sequence in one character)
// or DEL as is, and the JSON it prints is still the page's JSON, the curl command still the request.
import { execFileSync } from 'node:child_process'
import t from 'tap'
import { postJson } from '../helpers/app.js'
import { profileJson, storeOnly } from '../helpers/profiler.js'
import { profilerBin } from '../helpers/profiler-cli.js'
import { recordedApp } from '../helpers/profile-store.js'
import { UNCOVERED } from '../helpers/coverage.js'

/** CSI, then "clear the screen"; NEL; DEL; and a C1 run. */
const HOSTILE = '\u009b2J\u0085x\u007fy\u0080\u009f'
const RAW_CONTROL = /[\u007f-\u009f]/

t.test('export --curl, export --har, show --json, search --json: no C1 control reaches the terminal', async t => {
  const { app, env } = await recordedApp(t)
  // A header value (Node reads header bytes as latin-1: 0x9B is U+009B), a JSON field, a query value.
  const res = await postJson(app, `/monitor/MonitorPooling?note=${encodeURIComponent(HOSTILE)}`, { note: HOSTILE }, { 'x-note': `a${HOSTILE}b` })
  const token = String(res.headers['x-debug-token'])
  const page = await profileJson(app, token)
  t.equal(page.panels.request.requestHeaders['x-note'], `a${HOSTILE}b`, 'the profile holds the characters (the pages escape them as HTML)')

  // The six commands read the store side by side (each mostly starts node): none writes it. The bin
  // without tap's coverage hooks (a third of the CPU): the other scripts tests cover its code.
  const commands = [['export', token, '--curl'], ['export', token, '--har'], ['show', token, '--json'], ['show', token, '--panel', 'request'], ['search', '--json', '--limit', '1']]
  const [runs, unknown] = await Promise.all([
    Promise.all(commands.map(async args => ({ args, out: await profilerBin(args, env, UNCOVERED) }))),
    profilerBin(['show', `ab${HOSTILE}`], env, UNCOVERED)
  ])
  for (const { args, out } of runs) {
    t.equal(out.code, 0, out.stderr)
    t.notMatch(out.stdout, RAW_CONTROL, `${args.join(' ')}: no C1 control or DEL printed as is`)
    if (args.includes('--json') || args.includes('--har')) JSON.parse(out.stdout)
    if (args[0] === 'show' && args.includes('--json')) t.same(JSON.parse(out.stdout), storeOnly(page), 'show --json: still the page\'s JSON')
    if (args.includes('--curl')) {
      // The shell hands curl the very header and body the request had.
      const words = execFileSync('sh', ['-c', `printf '%s\\0' ${out.stdout.trimEnd().slice('curl '.length)}`]).toString('utf8').split('\0')
      t.ok(words.includes(`x-note: a${HOSTILE}b`), 'export --curl: the header comes back exactly through sh')
      t.ok(words.includes(JSON.stringify({ note: HOSTILE })), 'export --curl: the body too')
    }
  }

  t.equal(unknown.code, 2)
  t.notMatch(unknown.stderr, RAW_CONTROL, 'an error line quoting what was typed escapes it too')
})
