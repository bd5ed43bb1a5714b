// run-suite: shares a process
// A request with X-Profiler-Keep waits in the profiler's onSend hook for the limiter's word; the
// rest of the onSend chain then runs from a promise. A failure there (an answer Fastify cannot
// send) must reach Fastify's error handling as it does without the header, never
// become an unhandled rejection that ends the process. (In this app a later onSend hook, miss
// compression's, catches such a throw in Fastify's runner before it reaches the profiler's promise:
// this test passed before the hook returned its promise to Fastify too; it guards the answer.)
import t from 'tap'
import { buildTestApp } from '../helpers/app.js'

const SECRET = 'correct-horse-battery-staple'

t.test('an answer Fastify cannot send: a 500 with the keep header as without it, and the service goes on', async t => {
  const app = await buildTestApp(t, { PROFILER_SAMPLE: '0', PROFILER_SECRET: SECRET }, app => {
    // A serializer that yields what no answer can carry: Fastify's sending of it throws
    // (FST_ERR_REP_INVALID_PAYLOAD_TYPE) after the last onSend hook, the profiler's, handed it on.
    app.get('/broken-answer', async (request, reply) => await reply.serializer(() => 12345 as unknown as string).send({ ok: true }))
  })
  const without = await app.inject({ url: '/broken-answer' })
  t.equal(without.statusCode, 500, 'without the keep header: Fastify answers 500')
  for (const keep of [SECRET, 'a-wrong-guess']) {
    const res = await app.inject({ url: '/broken-answer', headers: { 'x-profiler-keep': keep } })
    t.equal(res.statusCode, 500, `with the keep header (${keep === SECRET ? 'right' : 'wrong'}): the same 500`)
  }
  const after = await app.inject({ url: '/robots.txt', headers: { 'x-profiler-keep': SECRET } })
  t.equal(after.statusCode, 404, 'the service goes on')
  t.type(after.headers['x-debug-token'], 'string', 'and the right keep header keeps the request')
})
