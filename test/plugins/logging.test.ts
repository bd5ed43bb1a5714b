// run-suite: shares a process
// Log serializers never throw, and nothing thrown while handling, logging or profiling a request
// ends the process: the server keeps answering on its real socket.
import t from 'tap'
import { buildApp } from '../../app.js'
import { logSerializers, UNSERIALIZABLE } from '../../lib/logging.js'
import { listeningApp, testConfig } from '../helpers/app.js'

const throwing = (): never => { throw new RangeError('Maximum call stack size exceeded') }

t.test('a value a serializer cannot turn into JSON is logged as a marker', async t => {
  const serializers = logSerializers(testConfig(t))
  const request = { method: 'GET', get url (): string { return throwing() } }
  t.same(serializers.req(request), { [UNSERIALIZABLE]: 'RangeError' })
  const error = new Error('boom')
  Object.defineProperty(error, 'detail', { enumerable: true, get: throwing })
  t.same(serializers.err(error), { [UNSERIALIZABLE]: 'RangeError' })
  t.same(serializers.res({ get statusCode (): number { return throwing() } }), { [UNSERIALIZABLE]: 'RangeError' })
  t.match(serializers.err(new Error('plain', { cause: new Error('root') })), { type: 'Error', message: 'plain', stack: /caused by/ }, 'errors keep pino\'s serialisation')
})

t.test('the request line of "/?x=" + "a=" x 6,000 is logged (it overflowed the stack and ended the process)', async t => {
  const serializers = logSerializers(testConfig(t))
  const url = `/?x=${'a='.repeat(6000)}&password=hunter22`
  t.match(serializers.req({ method: 'GET', url, host: 'localhost', ip: '127.0.0.1' }), { url: /&password=%5Bredacted%5D$/ })
})

t.test('a hook, a handler and a log call that throw: each answered, the server keeps answering', async t => {
  const lines: string[] = []
  const { address: base } = await listeningApp(t, { LOG_LEVEL: 'info' }, { logStream: { write: line => { lines.push(line) } } }, app => {
    app.get('/test/hook-throws', { onRequest: async () => { throwing() } }, async () => ({ ok: true }))
    app.get('/test/on-response-throws', { onResponse: async () => { throwing() } }, async () => ({ ok: true }))
    app.get('/test/log-throws', async request => {
      request.log.info({ req: { get url (): string { return throwing() } } }, 'a request-like value that cannot be serialised')
      const error = new Error('unserialisable')
      Object.defineProperty(error, 'detail', { enumerable: true, get: throwing })
      request.log.error({ err: error }, 'an error that cannot be serialised')
      return { ok: true }
    })
  })

  const hook = await fetch(`${base}/test/hook-throws`)
  t.equal(hook.status, 500, 'a hook that throws is a 500')
  t.ok(hook.headers.get('x-debug-token'), 'and it is profiled')
  t.equal((await fetch(`${base}/test/on-response-throws`)).status, 200)
  t.equal((await fetch(`${base}/test/log-throws`)).status, 200, 'a log call whose value cannot be serialised does not fail the request')
  t.equal((await fetch(`${base}/?x=${'a='.repeat(6000)}`)).status, 404, 'the crash URL is a 404')
  t.equal((await fetch(`${base}/monitor/MonitorPooling`, { method: 'POST' })).status, 200, 'the server still answers')
  t.ok(lines.some(line => line.includes(`"req":{"${UNSERIALIZABLE}":"RangeError"}`)), 'the marker is logged')
  t.ok(lines.some(line => line.includes(`"err":{"${UNSERIALIZABLE}":"RangeError"}`)), 'the marker is logged for the error')
})

t.test('every console line is redacted as the profiles are: the message, the call\'s fields, an error\'s message and fields, the request\'s host, method and address', async t => {
  const secret = 'log-line-secret-0123456789'
  const lines: string[] = []
  const app = await buildApp(testConfig(t, { LOG_LEVEL: 'info', PROFILER_SECRET: secret, TRUST_PROXY: 'on' }), { logStream: { write: line => { lines.push(line) } } })
  t.teardown(async () => { await app.close() })
  app.get('/test/log-secret', async request => {
    request.log.info({ target: `/x?q=${secret}`, nested: { list: [`a ${secret}`] } }, `seen %s and ${secret}`, secret)
    request.log.error({ err: Object.assign(new Error(`cannot reach ${secret}`), { input: `postgres://u:${secret}@h/db` }) }, 'a failure')
    return { ok: true }
  })
  const res = await app.inject({ url: '/test/log-secret', headers: { host: secret, 'x-forwarded-for': secret } })
  t.equal(res.statusCode, 200)
  const text = lines.join('\n')
  t.match(text, '"host":"[redacted]"')
  t.match(text, '"remoteAddress":"[redacted]"', 'the address X-Forwarded-For gave, behind a trusted proxy')
  t.match(text, '"msg":"seen [redacted] and [redacted]"')
  t.match(text, '"message":"cannot reach [redacted]"')
  t.notOk(text.includes(secret), 'the secret is in no line')
  t.notOk(text.includes('0123456789'), 'nor any part of it')
})
