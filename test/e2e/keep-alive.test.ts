// run-suite: shares a process
import http from 'node:http'
import net from 'node:net'
import { setTimeout as sleep } from 'node:timers/promises'
import t from 'tap'
import { listeningApp } from '../helpers/app.js'

// KEEP_ALIVE_TIMEOUT bounds how long a connection may sit idle between requests, never a request
// in flight on it. (The benchmark once failed with "other side closed": its client had held an
// idle connection past the timeout while its own event loop was busy, so it had not yet seen the
// server close it, and sent a request on it. The server was right; the client was fixed.)

interface Answer { status: number, body: string, reused: boolean, keepAlive: string }

t.test('a keep-alive connection: a request longer than KEEP_ALIVE_TIMEOUT completes on it; idle past it, it is closed', async t => {
  const { port } = await listeningApp(t, { KEEP_ALIVE_TIMEOUT: '3s' }, {}, app => {
    app.get('/test/slow/:ms', async request => {
      await sleep(Number((request.params as { ms: string }).ms))
      return { ok: true }
    })
  })
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
  t.teardown(() => { agent.destroy() })
  const get = async (path: string): Promise<Answer> => await new Promise((resolve, reject) => {
    const request = http.get({ host: '127.0.0.1', port, path, agent }, res => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => { body += chunk })
      res.on('end', () => { resolve({ status: res.statusCode ?? 0, body, reused: request.reusedSocket, keepAlive: String(res.headers['keep-alive']) }) })
    })
    request.on('error', reject)
  })

  // Node's own agent keeps an idle socket 1 s less than the server says: 3 s leaves it 2 s.
  const first = await get('/test/slow/10')
  t.match(first, { status: 200, reused: false, keepAlive: 'timeout=3' }, 'the server tells clients how long it keeps an idle connection')
  const slow = await get('/test/slow/3500')
  t.match(slow, { status: 200, body: '{"ok":true}', reused: true }, 'a request lasting 3.5 s is answered in full on the same connection')

  // A bare socket (no client-side timer): after one answer, the server closes it once idle for 3 s.
  const socket = net.connect(port, '127.0.0.1')
  t.teardown(() => { socket.destroy() })
  let received = ''
  let answeredAt = 0
  socket.setEncoding('utf8')
  socket.on('data', (chunk: string) => {
    received += chunk
    if (answeredAt === 0 && received.includes('{"ok":true}')) answeredAt = Date.now()
  })
  const ended = new Promise<number>(resolve => socket.once('end', () => { resolve(Date.now()) }))
  socket.write('GET /test/slow/10 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n')
  const endedAt = await ended
  t.match(received, /^HTTP\/1\.1 200 /)
  const idleMs = endedAt - answeredAt
  t.ok(answeredAt > 0 && idleMs >= 2500 && idleMs < 10_000, `closed by the server after ${idleMs} ms idle`)
})
