// A real TCP proxy between a client and a PostgreSQL server that can lose a COMMIT's answer: the
// server receives the COMMIT and commits, the client never hears it (its connection is cut
// instead). What a connection dying at that moment does, on demand and exactly once. It can also
// hold a COMMIT's answer back until told (a slow network after the commit).
import { connect, createServer, type Socket } from 'node:net'
import type { Test } from 'tap'

/** Requests sent before the startup message (SSLRequest, GSSENCRequest): like it, without a type byte. */
const PRE_STARTUP_CODES = new Set([80877103, 80877104])

export interface PostgresProxy {
  /** `url` (of the proxied server) with the proxy's port instead. */
  via: (url: string) => string
  /**
   * Arms the proxy, once: the next transaction that ran a statement matching `statement` has its
   * COMMIT passed on to the server, the server's answer dropped and both connections cut.
   * Resolves when that has happened.
   */
  loseNextCommitAnswer: (statement: RegExp) => Promise<void>
  /**
   * As loseNextCommitAnswer, but the answer is held back instead, with whatever else the server
   * sends that connection, until `release` is called. Resolves once the server has committed.
   */
  holdNextCommitAnswer: (statement: RegExp) => Promise<{ release: () => void }>
}

/** The client's messages of one connection, split as they arrive (the statements of its open transaction kept). */
class ClientStream {
  private buffer = Buffer.alloc(0)
  private started = false

  /** The complete messages the data ends, each with its type ('' before the startup) and its text. */
  add (data: Buffer): Array<{ raw: Buffer, type: string, text: string }> {
    this.buffer = Buffer.concat([this.buffer, data])
    const messages: Array<{ raw: Buffer, type: string, text: string }> = []
    for (;;) {
      const header = this.started ? 5 : 4
      if (this.buffer.length < header) return messages
      const length = this.buffer.readInt32BE(header - 4) + (this.started ? 1 : 0)
      if (this.buffer.length < length) return messages
      const raw = this.buffer.subarray(0, length)
      this.buffer = this.buffer.subarray(length)
      if (!this.started) {
        this.started = !PRE_STARTUP_CODES.has(raw.readInt32BE(4))
        messages.push({ raw, type: '', text: '' })
        continue
      }
      const type = String.fromCharCode(raw[0] ?? 0)
      const body = raw.subarray(5)
      // Q: the query text; P (Parse): the statement's name, then its text.
      const text = type === 'Q' ? body.toString('utf8', 0, body.indexOf(0)) : type === 'P' ? body.toString('utf8', body.indexOf(0) + 1, body.indexOf(0, body.indexOf(0) + 1)) : ''
      messages.push({ raw, type, text })
    }
  }
}

/** Starts a proxy on 127.0.0.1 in front of the server at `port` (closed, its connections too, when `t` ends). */
export async function startPostgresProxy (t: Test, port: number): Promise<PostgresProxy> {
  let armed: { statement: RegExp, done: () => void, hold: boolean } | null = null
  let held: { client: Socket, data: Buffer[] } | null = null
  const sockets = new Set<Socket>()
  const server = createServer(client => {
    const upstream = connect(port, '127.0.0.1')
    sockets.add(client)
    sockets.add(upstream)
    const stream = new ClientStream()
    let transaction: string[] = []
    /** Set once the armed COMMIT was passed on: the server's next bytes are its answer. */
    let cutOnAnswer: { done: () => void, hold: boolean } | null = null
    client.on('data', data => {
      for (const message of stream.add(data)) {
        upstream.write(message.raw)
        if (message.type !== 'Q' && message.type !== 'P') continue
        if (/^\s*BEGIN\b/i.test(message.text)) transaction = []
        else if (/^\s*COMMIT\b/i.test(message.text)) {
          const trigger = armed
          if (trigger !== null && transaction.some(text => trigger.statement.test(text))) {
            armed = null
            cutOnAnswer = { done: trigger.done, hold: trigger.hold }
          }
          transaction = []
        } else transaction.push(message.text)
      }
    })
    upstream.on('data', data => {
      if (held?.client === client) {
        held.data.push(data)
        return
      }
      if (cutOnAnswer === null) {
        client.write(data)
        return
      }
      const { done, hold } = cutOnAnswer
      cutOnAnswer = null
      if (hold) {
        // The server committed and answered: the answer waits.
        held = { client, data: [data] }
        done()
        return
      }
      // The server committed and answered: the client never gets the answer.
      client.destroy()
      upstream.destroy()
      done()
    })
    const end = (): void => {
      client.destroy()
      upstream.destroy()
      sockets.delete(client)
      sockets.delete(upstream)
    }
    client.on('error', end).on('close', end)
    upstream.on('error', end).on('close', end)
  })
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  if (address === null || typeof address === 'string') throw new Error('the proxy has no port')
  t.teardown(async () => {
    for (const socket of sockets) socket.destroy()
    await new Promise(resolve => server.close(resolve))
  })
  return {
    via: url => {
      const proxied = new URL(url)
      proxied.port = String(address.port)
      return proxied.toString()
    },
    loseNextCommitAnswer: async statement => {
      await new Promise<void>(resolve => { armed = { statement, done: resolve, hold: false } })
    },
    holdNextCommitAnswer: async statement => {
      await new Promise<void>(resolve => { armed = { statement, done: resolve, hold: true } })
      return {
        release: () => {
          const answer = held
          held = null
          if (answer !== null && !answer.client.destroyed) for (const data of answer.data) answer.client.write(data)
        }
      }
    }
  }
}
