// run-suite: shares a process
// The MCP server's stdio framing against what a client that is not the SDK can send: every line gets
// a JSON-RPC answer (-32700, -32600, -32602, as they apply; id null where none can be read) and the
// server keeps serving, through a real child process. A line over 10 MiB is an error answer, not
// the end of the server, and is discarded as it streams in.
import { join } from 'node:path'
import { PassThrough } from 'node:stream'
import fc from 'fast-check'
import t from 'tap'
import type { Test } from 'tap'
import { run } from '../../plugins/profiler/cli/cli.js'
import { hostileText } from '../helpers/hostile.js'
import { mcpLines, type McpLines, type RpcAnswer } from '../helpers/mcp-client.js'
import { recordedApp } from '../helpers/profile-store.js'
import { collected } from '../helpers/run.js'
import { waitFor } from '../helpers/wait-for.js'

const PARSE_ERROR = -32700
const INVALID_REQUEST = -32600
const METHOD_NOT_FOUND = -32601
const INVALID_PARAMS = -32602
const MAX_LINE_BYTES = 10 * 1024 * 1024

const searchCall = (id: string | number, args: Record<string, unknown> = { limit: 1 }): Record<string, unknown> =>
  ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'search_profiles', arguments: args } })

let calls = 0
/** Sends a working tool call after whatever was sent; resolves with the answers before its own, once it is answered with a profile. */
async function answersBeforeAWorkingCall (server: McpLines): Promise<RpcAnswer[]> {
  const id = `ok-${++calls}`
  await server.write(JSON.stringify(searchCall(id)) + '\n')
  const answers = await server.answersUntil(id)
  const own = answers.pop()
  const results = JSON.parse(own?.result?.content?.[0]?.text ?? 'null')?.results
  if (!Array.isArray(results) || results.length !== 1) throw new Error(`the working call was not answered with a profile: ${JSON.stringify(own)}`)
  return answers
}

async function endsCleanly (t: Test, server: McpLines): Promise<void> {
  t.same(await server.end(), { code: 0, stderr: '' }, 'the server ends with its input, exit code 0, nothing on stderr')
}

t.test('a line over 10 MiB is an error answer that says the limit; the next call is answered', async t => {
  const { env } = await recordedApp(t)
  const server = await mcpLines(t, env)
  // A tools/call of exactly `length` characters, or `bytes` bytes (the URL argument pads it; "é" is two bytes).
  const empty = (id: number): string => JSON.stringify(searchCall(id, { url: '' }))
  const callOfLength = (id: number, length: number): string => JSON.stringify(searchCall(id, { url: 'a'.repeat(length - empty(id).length) }))
  const callOfBytes = (id: number, bytes: number): string => {
    const pad = bytes - empty(id).length
    return JSON.stringify(searchCall(id, { url: 'é'.repeat(Math.floor(pad / 2)) + 'a'.repeat(pad % 2) }))
  }
  const refused = (bytes: number): RpcAnswer => ({
    jsonrpc: '2.0',
    id: null,
    error: { code: INVALID_REQUEST, message: `Invalid Request: a message is one line of at most ${MAX_LINE_BYTES} bytes (10 MiB); this one had ${bytes} bytes and was discarded unread` }
  })

  const over = callOfLength(14, 10_486_000)
  t.equal(over.length, 10_486_000)
  await server.write(over + '\n')
  t.same(await answersBeforeAWorkingCall(server), [refused(10_486_000)], 'an error answer, then the next call is answered')

  // Within the bound the line is read (the tool itself refuses a 10 MB URL), up to the last byte.
  await server.write(callOfLength(15, 10_485_000) + '\n')
  t.match(await server.answersUntil(15), [{ id: 15, result: { isError: true, content: [{ text: /url/ }] } }])
  const atBound = callOfBytes(16, MAX_LINE_BYTES)
  t.equal(Buffer.byteLength(atBound), MAX_LINE_BYTES)
  await server.write(atBound + '\n')
  t.match(await server.answersUntil(16), [{ id: 16, result: { isError: true } }])
  await server.write(callOfBytes(17, MAX_LINE_BYTES + 1) + '\n')
  t.same(await answersBeforeAWorkingCall(server), [refused(MAX_LINE_BYTES + 1)], 'the bound counts bytes, not characters')
  await endsCleanly(t, server)
})

t.test('an endless line is discarded as it streams in: the server\'s memory stays bounded, and it answers after it', async t => {
  const { env } = await recordedApp(t)
  const server = await mcpLines(t, env)
  await answersBeforeAWorkingCall(server)
  const before = await server.peakMemory()
  const MiB = Buffer.alloc(1024 * 1024, 'x')
  // V8 collects external (Buffer) garbage once about 64 MiB of it has piled up, so the peak can reach the
  // 10 MiB kept plus that much garbage whatever the line's length: a line well past both tells apart
  // a server that discards it (growth stays under the bound) from one that keeps it (grows by the line).
  const LINE_MIB = 256
  for (let i = 0; i < LINE_MIB; i++) await server.write(MiB)
  await server.write('\n')
  const [answer] = await answersBeforeAWorkingCall(server)
  t.match(answer, { id: null, error: { code: INVALID_REQUEST, message: `this one had ${LINE_MIB * 1024 * 1024} bytes and was discarded unread` } })
  const grown = (await server.peakMemory()) - before
  t.ok(grown < 96 * 1024 * 1024, `the peak resident memory grew by ${Math.round(grown / 1024 / 1024)} MiB for a ${LINE_MIB} MiB line (at most the 10 MiB bound is kept, with the garbage V8 has not yet collected)`)
  await endsCleanly(t, server)
})

t.test('each class of malformed message is answered with its code, and the server still serves after it', async t => {
  const { env } = await recordedApp(t)
  const server = await mcpLines(t, env)
  const call = { jsonrpc: '2.0', id: 13, method: 'tools/call', params: { name: 'search_profiles', arguments: {} } }
  const line = (value: unknown): string => JSON.stringify(value)
  const cases: Array<[string, string, number, string | number | null]> = [
    ['text that is not JSON', 'tools/call please', PARSE_ERROR, null],
    ['JSON cut short', line(call).slice(0, 30), PARSE_ERROR, null],
    ['an empty line', '', PARSE_ERROR, null],
    ['an empty batch', '[]', INVALID_REQUEST, null],
    ['a batch (MCP has none)', line([call]), INVALID_REQUEST, null],
    ['null', 'null', INVALID_REQUEST, null],
    ['a number', '42', INVALID_REQUEST, null],
    ['a string', '"ping"', INVALID_REQUEST, null],
    ['JSON-RPC 1.0', line({ ...call, jsonrpc: '1.0' }), INVALID_REQUEST, 13],
    ['no "jsonrpc"', line({ id: 13, method: 'ping' }), INVALID_REQUEST, 13],
    ['a method that is not a string', line({ ...call, method: 7 }), INVALID_REQUEST, 13],
    ['an id that is null', line({ ...call, id: null }), INVALID_REQUEST, null],
    ['an id that is a fraction', line({ ...call, id: 1.5 }), INVALID_REQUEST, null],
    ['an id that is an object', line({ ...call, id: { n: 1 } }), INVALID_REQUEST, null],
    ['neither a method, a result nor an error', line({ jsonrpc: '2.0', id: 13 }), INVALID_REQUEST, 13],
    ['a member JSON-RPC does not have', line({ ...call, extra: true }), INVALID_REQUEST, 13],
    ['a response whose result is not an object', line({ jsonrpc: '2.0', id: 13, result: 5 }), INVALID_REQUEST, 13],
    ['"params": null', line({ ...call, params: null }), INVALID_PARAMS, 13],
    ['"params" an array', line({ ...call, params: ['search_profiles'] }), INVALID_PARAMS, 13],
    ['tools/call without a tool name', line({ ...call, params: {} }), INVALID_PARAMS, 13],
    ['tools/call without params', line({ jsonrpc: '2.0', id: 13, method: 'tools/call' }), INVALID_PARAMS, 13],
    ['initialize with params of the wrong shape', line({ jsonrpc: '2.0', id: 13, method: 'initialize', params: { protocolVersion: 1 } }), INVALID_PARAMS, 13],
    ['a notification with wrong params', line({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: {} } }), INVALID_PARAMS, null],
    ['a method the server does not have', line({ jsonrpc: '2.0', id: 13, method: 'tools/delete' }), METHOD_NOT_FOUND, 13]
  ]
  for (const [what, text, code, id] of cases) {
    await server.write(text + '\n')
    const answers = await answersBeforeAWorkingCall(server)
    t.match(answers, [{ jsonrpc: '2.0', id, error: { code, message: /\S/ } }], what)
    t.equal(answers.length, 1, `${what}: one answer`)
  }
  // A CR LF line end is one line end.
  await server.write(line(searchCall(20)) + '\r\n')
  t.match(await server.answersUntil(20), [{ id: 20, result: { content: [{ type: 'text' }] } }])
  await endsCleanly(t, server)
})

/** What JSON-RPC calls an id: a string or an integer (MCP: a safe one); anything else is answered with id null. */
const isRequestId = (value: unknown): value is string | number => typeof value === 'string' || Number.isSafeInteger(value)
const asSent = (value: unknown): unknown => JSON.parse(JSON.stringify(value))

/** Writes the line and a working call after it; the line must get exactly one error answer, with this code and id. */
async function answeredWith (server: McpLines, line: string, code: number, id: string | number | null): Promise<void> {
  await server.write(line + '\n')
  const answers = await answersBeforeAWorkingCall(server)
  const [answer] = answers
  if (answers.length !== 1 || answer?.jsonrpc !== '2.0' || answer.id !== id || answer.error?.code !== code || answer.error.message === '') {
    throw new Error(`${JSON.stringify(line).slice(0, 200)} should be answered with ${code} (id ${JSON.stringify(id)}), was: ${JSON.stringify(answers)}`)
  }
}

t.test('generated junk: every line is answered, and a working call after it too', async t => {
  const { env } = await recordedApp(t)
  const server = await mcpLines(t, env)

  // Any JSON value but an object that says "jsonrpc": "2.0": not a message (-32600), with the id when one can be read.
  const notAMessage = fc.jsonValue().map(asSent).filter(value => !(typeof value === 'object' && value !== null && (value as Record<string, unknown>).jsonrpc === '2.0'))
  await fc.assert(fc.asyncProperty(notAMessage, async value => {
    const object = typeof value === 'object' && value !== null && !Array.isArray(value) ? value as Record<string, unknown> : {}
    await answeredWith(server, JSON.stringify(value), INVALID_REQUEST, isRequestId(object.id) ? object.id : null)
  }), { numRuns: 150, seed: 2101 })
  t.pass('150 JSON values that are not a message')

  // A working call with one member replaced by what it cannot be, left out, or one member added.
  const absent = fc.constant(undefined)
  const anyJson = fc.jsonValue().map(asSent)
  const broken = fc.oneof(
    fc.record({ member: fc.constant('jsonrpc'), value: fc.oneof(absent, anyJson.filter(value => value !== '2.0')), code: fc.constant(INVALID_REQUEST), keepsId: fc.constant(true) }),
    fc.record({ member: fc.constant('method'), value: fc.oneof(absent, anyJson.filter(value => typeof value !== 'string')), code: fc.constant(INVALID_REQUEST), keepsId: fc.constant(true) }),
    fc.record({ member: fc.constant('id'), value: anyJson.filter(value => !isRequestId(value)), code: fc.constant(INVALID_REQUEST), keepsId: fc.constant(false) }),
    fc.record({ member: fc.constant('params'), value: fc.oneof(absent, anyJson.filter(value => typeof value !== 'object' || value === null || Array.isArray(value))), code: fc.constant(INVALID_PARAMS), keepsId: fc.constant(true) }),
    fc.record({ member: fc.string({ maxLength: 12 }).filter(name => !['jsonrpc', 'method', 'id', 'params'].includes(name)), value: anyJson, code: fc.constant(INVALID_REQUEST), keepsId: fc.constant(true) })
  )
  let junkId = 0
  await fc.assert(fc.asyncProperty(broken, async ({ member, value, code, keepsId }) => {
    const id = ++junkId
    const message: Record<string, unknown> = { ...searchCall(id) }
    if (value === undefined) delete message[member]
    else Object.defineProperty(message, member, { value, enumerable: true, writable: true, configurable: true })
    await answeredWith(server, JSON.stringify(message), code, keepsId ? id : null)
  }), { numRuns: 150, seed: 2102 })
  t.pass('150 calls with one member broken')

  // Any text that is not JSON (on one line): a parse error.
  const notJson = fc.oneof(hostileText(50, 4), fc.string({ maxLength: 40 }))
    .map(text => text.replaceAll('\n', ' '))
    .filter(text => { try { JSON.parse(text); return false } catch { return true } })
  await fc.assert(fc.asyncProperty(notJson, async text => {
    await answeredWith(server, text, PARSE_ERROR, null)
  }), { numRuns: 150, seed: 2103 })
  t.pass('150 lines of text that is not JSON')
  await endsCleanly(t, server)
})

t.test('a client that does not read its answers: the server stops reading its input (bounded output), then answers every line', async t => {
  const toServer = new PassThrough()
  const fromServer = new PassThrough({ highWaterMark: 1024 })
  const stderr = collected()
  const exited = run(['mcp'], { env: { PROFILER_DATABASE_PATH: join(t.testdir(), 'none.sqlite') }, stdin: toServer, stdout: fromServer, stderr: stderr.stream })
  t.teardown(() => { toServer.end() })
  const LINES = 2000
  for (let i = 0; i < LINES; i++) toServer.write('[]\n')
  await waitFor(() => toServer.isPaused(), { what: 'the server to stop reading while its answers are not read' })
  t.ok(fromServer.readableLength < 4 * 1024, `${fromServer.readableLength} bytes of answers wait (those of ${LINES} lines would be ${LINES * 150} bytes or more)`)
  let answers = ''
  fromServer.setEncoding('utf8')
  fromServer.on('data', (text: string) => { answers += text })
  await waitFor(() => answers.split('\n').length - 1 === LINES, { what: `${LINES} answers` })
  t.ok(answers.split('\n').slice(0, -1).every(line => JSON.parse(line).error.code === INVALID_REQUEST), 'each line answered -32600')
  toServer.end()
  t.same({ code: await exited, stderr: stderr.text() }, { code: 0, stderr: '' })
})
