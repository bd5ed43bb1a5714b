// run-suite: shares a process
// The console's redaction judges each logged value as pino writes it (JSON.stringify: a toJSON
// method's result, a Buffer's bytes, a URL's text), not only its own enumerable fields: those show a
// Date or a URL as `{}`, a Buffer as a field per byte, and an object whose toJSON returns the secret
// printed it in clear; a format argument (%s, %o, %j) was not redacted at all. A URL's password is
// masked whatever its scheme (`amqp://user:pass@host/`, `redis://:pass@host`), as a database URL's.
import fc from 'fast-check'
import t from 'tap'
import { buildApp } from '../../app.js'
import { testConfig } from '../helpers/app.js'

const SECRET = 'Zq9-configured-secret-42'
const password = fc.stringMatching(/^[A-Za-z0-9]{8,14}$/).map(s => `Pw7${s}`)
const scheme = fc.constantFrom('amqp', 'redis', 'rediss', 'postgres', 'mongodb+srv', 'https', 'ftp', 'x-custom')

/** A text holding a secret, and the secret that must not show. */
const secretText = fc.oneof(
  fc.constant({ text: SECRET, secret: SECRET }),
  fc.constant({ text: `seen ${SECRET} here`, secret: SECRET }),
  fc.tuple(scheme, password, fc.boolean()).map(([s, pw, user]) => ({ text: `${s}://${user ? 'app' : ''}:${pw}@broker.internal:5672/vhost`, secret: pw })),
  fc.tuple(scheme, password).map(([s, pw]) => ({ text: `connecting to ${s}://app:${pw}@db.internal/x then`, secret: pw }))
)

class Wrapped {
  constructor (private readonly inner: unknown) {}
  toJSON (): unknown { return this.inner }
}

type Wrap = (value: unknown, text: string) => unknown
/** The wrappings a logged value may come in: each holds the text (or a value holding it). */
const wrap = fc.constantFrom<Wrap>(
  value => value,
  value => ({ toJSON: () => value }),
  value => new Wrapped(value),
  value => [value],
  value => ({ nested: { value }, at: new Date(0) }),
  (_, text) => Buffer.from(text),
  (_, text) => { try { return new URL(text) } catch { return text } }
)
const logged = fc.tuple(secretText, fc.array(wrap, { minLength: 1, maxLength: 4 })).map(([{ text, secret }, wraps]) => ({
  value: wraps.reduce<unknown>((value, w) => w(value, text), text),
  secret
}))

t.test('any logged value holding the secret or a URL password, whatever its wrapping and place in the call, never shows it', async t => {
  const lines: string[] = []
  const app = await buildApp(testConfig(t, { LOG_LEVEL: 'info', PROFILER_SECRET: SECRET }), { logStream: { write: line => { lines.push(line) } } })
  t.teardown(async () => { await app.close() })
  await fc.assert(fc.asyncProperty(logged, fc.constantFrom('field', '%s', '%o', '%j', 'merged'), async ({ value, secret }, place) => {
    lines.length = 0
    if (place === 'field') app.log.info({ value }, 'logged')
    else if (place === 'merged') app.log.info(value as object, 'logged')
    else app.log.info(`logged ${place}`, value)
    const text = lines.join('\n')
    return lines.length === 1 && !text.includes(secret)
  }), { numRuns: 300 })
})

t.test('a Date, a URL, a Buffer and a toJSON value are logged as JSON writes them, with only the secret replaced', async t => {
  const lines: string[] = []
  const app = await buildApp(testConfig(t, { LOG_LEVEL: 'info', PROFILER_SECRET: SECRET }), { logStream: { write: line => { lines.push(line) } } })
  t.teardown(async () => { await app.close() })
  app.log.info({
    at: new Date(0),
    site: new URL('https://example.test/a?b=1'),
    broker: new URL('amqp://app:Pw7brokerpass@mq.internal/vhost'),
    cache: 'redis://:Pw7cachepass@cache.internal:6379/0',
    bytes: Buffer.from('ok'),
    payload: Buffer.from(`key ${SECRET}`),
    custom: new Wrapped({ kept: 1 }),
    password: 'Pw7mergedfield'
  }, 'values')
  app.log.info('at %s and %j', new URL('redis://:Pw7formatpass@cache.internal'), { password: 'Pw7fieldpass' })
  const parsed = lines.map(l => JSON.parse(l) as Record<string, unknown>)
  const line = parsed.find(l => l.msg === 'values')
  const format = parsed.find(l => String(l.msg).startsWith('at '))
  t.match(line, {
    at: '1970-01-01T00:00:00.000Z',
    site: 'https://example.test/a?b=1',
    broker: 'amqp://app:***@mq.internal/vhost',
    cache: 'redis://:***@cache.internal:6379/0',
    bytes: { type: 'Buffer', data: [111, 107] },
    payload: { type: 'Buffer', data: '[redacted]' },
    custom: { kept: 1 },
    password: '[redacted]'
  })
  t.notOk(lines.join('\n').includes('Pw7'), 'no password in any line')
  t.match(format?.msg, /^at "?redis:\/\/:\*\*\*@cache\.internal"? and \{"password":"\[redacted\]"\}$/)
})
