export interface PollAnswer { token: string | null, status: number, at: number }

/**
 * `workers` loops of status polls against a real server until stop(), flat out, or each waiting
 * `pauseMs` between its requests: steady concurrent traffic for a test that waits for the clock,
 * which leaves the machine's cores to the other test files meanwhile. A failed request (no
 * answer) is kept as status 0, or, with `endOnFailure`, ends its loop (the server is gone).
 */
export function pollLoad (address: string, workers: number, { endOnFailure = false, pauseMs = 0 } = {}): { answers: PollAnswer[], stop: () => Promise<void> } {
  const answers: PollAnswer[] = []
  const state = { running: true }
  const loops = Array.from({ length: workers }, async (_, worker) => {
    for (let i = 0; state.running; i++) {
      try {
        const res = await fetch(`${address}/monitor/MonitorPooling`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ worker, i }) })
        await res.arrayBuffer()
        answers.push({ token: res.headers.get('x-debug-token'), status: res.status, at: Date.now() })
      } catch {
        if (endOnFailure) return
        answers.push({ token: null, status: 0, at: Date.now() })
      }
      if (pauseMs > 0) await new Promise(resolve => setTimeout(resolve, pauseMs))
    }
  })
  return { answers, stop: async () => { state.running = false; await Promise.all(loops) } }
}
