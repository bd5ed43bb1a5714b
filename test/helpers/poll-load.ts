import { Agent, request } from 'node:http'

export interface PollAnswer { token: string | null, status: number, at: number }

/**
 * `workers` loops of status polls against a real server until stop(), flat out, or each waiting
 * `pauseMs` between its requests: steady concurrent traffic for a test that waits for the clock,
 * which leaves the machine's cores to the other test files meanwhile. A failed request (no
 * answer) is kept as status 0, or, with `endOnFailure`, ends its loop (the server is gone).
 * The polls go through node:http with a keep-alive agent, not fetch: about a third of fetch's CPU
 * a request, less again under tap's async hooks, and these loops share the cores with other files.
 */
export function pollLoad (address: string, workers: number, { endOnFailure = false, pauseMs = 0 } = {}): { answers: PollAnswer[], stop: () => Promise<void> } {
  const answers: PollAnswer[] = []
  const state = { running: true }
  const agent = new Agent({ keepAlive: true })
  const url = new URL('/monitor/MonitorPooling', address)
  const loops = Array.from({ length: workers }, async (_, worker) => {
    for (let i = 0; state.running; i++) {
      try {
        answers.push({ ...await poll(url, agent, JSON.stringify({ worker, i })), at: Date.now() })
      } catch {
        if (endOnFailure) return
        answers.push({ token: null, status: 0, at: Date.now() })
      }
      if (pauseMs > 0) await new Promise(resolve => setTimeout(resolve, pauseMs))
    }
  })
  return {
    answers,
    stop: async () => {
      state.running = false
      await Promise.all(loops)
      agent.destroy()
    }
  }
}

/** One status poll: its status and debug token once the whole answer is read. */
async function poll (url: URL, agent: Agent, body: string): Promise<{ status: number, token: string | null }> {
  return await new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, res => {
      res.on('error', reject)
      res.on('end', () => {
        const token = res.headers['x-debug-token']
        resolve({ status: res.statusCode ?? 0, token: typeof token === 'string' ? token : null })
      })
      res.resume()
    })
    req.on('error', reject)
    req.end(body)
  })
}
