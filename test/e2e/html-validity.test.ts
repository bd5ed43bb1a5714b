// The Nu HTML checker (vnu.jar from npm, the W3C's validator) on every profiler page and the HTML
// error page: no error. One java run for all the pages (a JVM takes seconds to start).
import { execFile } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'
import t from 'tap'
import vnuJar from 'vnu-jar'
import { PANEL_NAMES } from '../../plugins/profiler/panels/index.js'
import { buildTestApp, postJson } from '../helpers/app.js'
import { freshDir } from '../helpers/dirs.js'
import { listProfiles } from '../helpers/profiler.js'

/** The jar's path (the package exports it). */
const VNU_JAR = String(vnuJar)
const run = promisify(execFile)

interface VnuMessage { type: string, subType?: string, url: string, lastLine?: number, message: string }

/** vnu's errors on these files, one line each (file, line, message); warnings are not errors. */
async function checkerErrors (files: string[]): Promise<string[]> {
  // --exit-zero-always: the messages are read from the JSON report, not from the exit code.
  // One short run: the JVM's quick compiler alone (-XX:TieredStopAtLevel=1) and one GC thread
  // (SerialGC) spend less CPU than the optimising compiler and the parallel GC would pay back.
  const { stderr } = await run('java', ['-XX:TieredStopAtLevel=1', '-XX:+UseSerialGC', '-Xss16m', '-jar', VNU_JAR, '--format', 'json', '--exit-zero-always', ...files], { maxBuffer: 64 * 1024 * 1024 })
  const { messages } = JSON.parse(stderr) as { messages: VnuMessage[] }
  return messages
    .filter(message => message.type === 'error' || message.subType === 'fatal')
    .map(message => `${message.url.split('/').at(-1) ?? ''}:${message.lastLine ?? '?'} ${message.message}`)
}

t.test('every profiler page and the HTML error page pass the Nu HTML checker', async t => {
  const app = await buildTestApp(t)
  const lookup = await postJson(app, '/ccenter/getConseillerByCode', { code: 'ADV1001' }, { authorization: 'Bearer abc' })
  const missing = await app.inject({ url: '/robots.txt', headers: { referer: 'http://localhost/home' } })
  const badBody = await app.inject({ method: 'POST', url: '/ccenter/getConseillerByCode', headers: { 'content-type': 'application/json' }, payload: '{"code": "\u0001\u0085' })
  const form = await app.inject({ method: 'POST', url: '/monitor/MonitorPooling', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: 'code=ADV1001&password=hunter2' })
  const tokens = [lookup, missing, badBody, form].map(res => String(res.headers['x-debug-token']))
  t.equal((await listProfiles(app)).length, tokens.length, 'the four requests are stored')

  const pages = [
    '/_profiler/empty/search/results?limit=10',
    '/_profiler/empty/search/results?url=nothing-matches',
    // Slowest first: the Duration column (issue 40).
    '/_profiler/empty/search/results?sort=duration&limit=10',
    '/_profiler/stats',
    '/_profiler/stats?window=7d',
    '/_profiler/stats?window=5m',
    `/_profiler/stats?window=24h&deployment=${app.config.profilerDeployment}&compare=elsewhere`,
    ...tokens.flatMap(token => PANEL_NAMES.map(panel => `/_profiler/${token}?panel=${panel}&type=request`)),
    `/_profiler/${tokens[0] ?? ''}?panel=timeline&threshold=0.1`,
    // A panel's own page: the db panel's Explain of the lookup's SELECT.
    `/_profiler/${tokens[0] ?? ''}/db/explain?statement=1`,
    '/no/such/page',
    '/_profiler/nope'
  ]
  const dir = freshDir(t, 'html-')
  const files: string[] = []
  for (const [index, path] of pages.entries()) {
    const res = await app.inject({ url: path, headers: { accept: 'text/html' } })
    t.match(res.headers['content-type'], /^text\/html/, `${path} is a page`)
    const file = join(dir, `page-${index}.html`)
    writeFileSync(file, res.body)
    files.push(file)
  }
  const errors = await checkerErrors(files)
  t.same(errors, [], `no error (pages: ${pages.map((path, index) => `page-${index} ${path}`).join(', ')})`)
})
