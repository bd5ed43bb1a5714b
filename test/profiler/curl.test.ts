import { execFile, execFileSync } from 'node:child_process'
import { promisify } from 'node:util'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import fc from 'fast-check'
import t from 'tap'
import { curlCommand, type CurlSource } from '../../plugins/profiler/panels/request/curl.js'
import { buildTestApp, postJson } from '../helpers/app.js'
import { tokenOf } from '../helpers/debug-token.js'
import { profileJson } from '../helpers/profiler.js'
import { anyText } from '../helpers/hostile.js'

/**
 * The words a POSIX shell hands to each command: the command lines run by one `sh`, each with
 * `set --` in curl's place (the same expansions as any command's arguments), its words printed
 * after their count.
 */
function wordsAfterCurlEach (commands: string[]): string[][] {
  for (const command of commands) t.equal(command.slice(0, 5), 'curl ')
  const script = commands.map(command => `set -- ${command.slice(5)}\nprintf '%s\\0' "$#" "$@"\n`).join('')
  const out = execFileSync('sh', ['-c', script], { maxBuffer: 64 * 1024 * 1024 }).toString('utf8').split('\0')
  return commands.map(() => out.splice(0, Number(out.shift())))
}

/** The words a POSIX shell hands to the command (wordsAfterCurlEach). */
function wordsAfterCurl (command: string): string[] {
  return wordsAfterCurlEach([command])[0] ?? []
}

// NUL cannot be in a shell argument, and no request field can hold one (Node's parser refuses it
// in the URL and headers; bodies are stored as parsed JSON, re-serialised with \u0000 escapes).
const hostileText = anyText(40)
  // (and no lone surrogate, which has no UTF-8 form to hand to the shell)
  .filter(text => !text.includes('\0') && Buffer.from(text, 'utf8').toString('utf8') === text)
  // (and control characters, C1's CSI among them: written through printf, never as is)
  .map(text => `${text}'"$(touch pwned)\`id\`\\ \n;|&*?[a]{b}~$HOME!\u009b\u001b[2J\r\u0085\u007f`.slice(0, 90 + text.length))

/** A control character a terminal may act on (tab and newline aside). */
// eslint-disable-next-line no-control-regex
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/

/** Whether curl, handed `words`, sends the panel's URL, headers (but those curl sets itself), body, and no `-X GET`. */
function curlGets (panel: CurlSource, words: string[]): boolean {
  if (words[0] !== panel.url) return false
  for (const [name, value] of Object.entries(panel.requestHeaders)) {
    if (['host', 'content-length', 'connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'expect', 'te', 'trailer'].includes(name)) continue
    if (!words.includes(value === '' ? `${name};` : `${name}: ${String(value)}`)) return false
  }
  const hasBody = panel.body !== null && panel.method !== 'GET' && panel.method !== 'HEAD'
  const data = words.indexOf('--data-raw')
  if (hasBody !== (data >= 0) || (hasBody && words[data + 1] !== JSON.stringify(panel.body))) return false
  return !(words.includes('-X') && words[words.indexOf('-X') + 1] === 'GET')
}

t.test('whatever the request held, the shell hands curl exactly the stored URL, headers and body', async t => {
  const source = fc.record({
    method: fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS', 'PURGE'),
    url: hostileText.map(text => `http://localhost/${text}`),
    requestHeaders: fc.dictionary(fc.stringMatching(/^[a-z][a-z0-9-]{0,15}$/), hostileText, { maxKeys: 5 }),
    body: fc.option(fc.oneof(hostileText, fc.jsonValue({ maxDepth: 3 })), { nil: null })
  })
  // The generated commands go through one shell (a shell started per command was most of the
  // file's CPU): each with no raw control character, then each split as curl would get it.
  const generated: Array<{ panel: CurlSource, command: string, args: string[] }> = []
  fc.assert(fc.property(source, (panel: CurlSource) => {
    const { command, args } = curlCommand(panel)
    if (RAW_CONTROL.test(command)) return false
    generated.push({ panel, command, args })
    return true
  }), { numRuns: 150 })
  const split = wordsAfterCurlEach(generated.map(({ command }) => command))
  generated.forEach(({ panel, args }, i) => {
    const words = split[i] ?? []
    t.same(words, args, 'the shell splits the command into exactly these arguments')
    t.ok(curlGets(panel, words), `the URL, headers, body and method of ${JSON.stringify(panel)}`)
  })
  t.notOk(existsSync('pwned'), 'nothing in the arguments ran')
})

t.test('the method: none for GET and for POST with a body, --head for HEAD, -X otherwise', async t => {
  const base = { url: 'http://localhost/x', requestHeaders: {}, body: null }
  t.same(curlCommand({ ...base, method: 'GET' }).args, ['http://localhost/x'])
  t.same(curlCommand({ ...base, method: 'HEAD' }).args, ['http://localhost/x', '--head'])
  t.same(curlCommand({ ...base, method: 'POST' }).args, ['http://localhost/x', '-X', 'POST'])
  t.same(curlCommand({ ...base, method: 'POST', body: { a: 1 } }).args, ['http://localhost/x', '--data-raw', '{"a":1}'])
  t.same(curlCommand({ ...base, method: 'DELETE', body: { a: 1 } }).args, ['http://localhost/x', '-X', 'DELETE', '--data-raw', '{"a":1}'])
  t.same(curlCommand({ ...base, url: 'http://localhost/x?a[]=1', method: 'GET' }).args, ['http://localhost/x?a[]=1', '--globoff'], 'no URL globbing')
  const form = curlCommand({ ...base, method: 'POST', requestHeaders: { 'content-type': 'application/x-www-form-urlencoded' }, body: { a: 'x y', b: ['1', '2'] } })
  t.equal(form.args.at(-1), 'a=x+y&b=1&b=2', 'a form body is sent as a form')
  const truncated = curlCommand({ ...base, method: 'POST', body: { truncated: true, bytes: 99999, preview: '{"blob":"xx' } })
  t.equal(truncated.truncatedBody, true)
  t.equal(truncated.args.at(-1), '{"blob":"xx')
  t.same(curlCommand({ ...base, method: 'GET', requestHeaders: { 'x-empty': '', host: 'h', 'content-length': '3', 'accept-encoding': 'gzip' } }).args,
    ['http://localhost/x', '-H', 'x-empty;', '-H', 'accept-encoding: gzip', '--compressed'])
})

t.test('GET /_profiler/<token>/curl answers the command as text; the request panel shows it, redacted values marked', async t => {
  const app = await buildTestApp(t)
  const res = await postJson(app, '/ccenter/getConseillerByCode?password=hunter2', { code: "ADV'1001", password: 'hunter2' }, { authorization: 'Bearer abc.def.ghi', 'x-note': "it's $(id)" })
  const token = tokenOf(res)
  await app.profileStore.flush()
  const text = await app.inject({ url: `/_profiler/${token}/curl` })
  t.equal(text.statusCode, 200)
  t.match(text.headers['content-type'], /^text\/plain; charset=utf-8/)
  t.equal(text.headers['x-debug-token'], undefined, 'not profiled itself')
  const command = text.body.trimEnd()
  t.notMatch(command, /hunter2|abc\.def/, 'nothing redacted comes back')
  t.notMatch(command, /-X/, 'a POST with a body needs no -X')
  const words = wordsAfterCurl(command)
  t.same(words, [
    'http://localhost/ccenter/getConseillerByCode?password=%5Bredacted%5D',
    '-H', 'content-type: application/json',
    '-H', 'authorization: [redacted]',
    '-H', 'x-note: it\'s $(id)',
    '-H', 'user-agent: lightMyRequest',
    '--data-raw', '{"code":"ADV\'1001","password":"[redacted]"}'
  ])
  const page = await app.inject({ url: `/_profiler/${token}?panel=request`, headers: { accept: 'text/html' } })
  const box = /<pre class="curl" id="curl-command" tabindex="0">([\s\S]*?)<\/pre>/.exec(page.body)?.[1] ?? ''
  t.match(box, /^curl &#x27;http:\/\/localhost\/ccenter\/getConseillerByCode\?password&#x3D;<mark class="redacted">%5Bredacted%5D<\/mark>&#x27; \\/)
  t.equal(box.match(/<mark class="redacted">/g)?.length, 3, 'the URL, the header and the body field are marked')
  t.match(page.body, /<strong>Marked values were redacted<\/strong>/)
  t.match(page.body, new RegExp(`<a href="/_profiler/${token}/curl">As plain text</a>`))
  const missing = await app.inject({ url: '/_profiler/abc123/curl', headers: { accept: 'application/json' } })
  t.equal(missing.statusCode, 404)
  t.equal(missing.json().message, 'Token "abc123" not found.')
})

t.test('pasted into a shell, the command makes the same request again', async t => {
  const dir = t.testdir()
  const app = await buildTestApp(t, {}, app => {
    app.put('/test/things/:id', async request => ({ got: request.body }))
  })
  const address = await app.listen({ port: 0, host: '127.0.0.1' })
  const body = { note: "it's \"quoted\" $(touch pwned) `id`\nsecond line", n: [1, 2] }
  const first = await fetch(`${address}/test/things/7?q=a%20b`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json', 'x-note': "O'Brien; rm -rf ~" },
    body: JSON.stringify(body)
  })
  const token = first.headers.get('x-debug-token') ?? ''
  await app.profileStore.flush()
  const command = await (await fetch(`${address}/_profiler/${token}/curl`)).text()
  // Asynchronously: the server answering curl runs in this process.
  const { stdout: headers } = await promisify(execFile)('sh', ['-c', `${command.trimEnd()} -s -o /dev/null -D -`], { cwd: dir })
  t.notOk(existsSync(join(dir, 'pwned')), 'nothing but curl ran')
  const again = /x-debug-token: ([0-9a-f]{6})/i.exec(headers)?.[1] ?? ''
  t.match(headers, /^HTTP\/1\.1 200/)
  const [before, after] = [await profileJson(app, token), await profileJson(app, again)]
  for (const key of ['method', 'url', 'route', 'query', 'body', 'params'] as const) {
    t.same(after.panels.request[key], before.panels.request[key], key)
  }
  t.equal(after.panels.request.requestHeaders['x-note'], "O'Brien; rm -rf ~")
  t.same(after.panels.request.response.body, { got: body })
})
