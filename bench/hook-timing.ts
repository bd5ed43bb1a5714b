// What the timeline's hook timing costs a run, alone: two Fastify apps in this process with the
// same hooks as a business request runs (13 hooks, callback and async, and the handler), one of
// them timed (hook-timing.ts installed first), injected in blocks in the order untimed, timed,
// timed, untimed. One process, one JIT and one heap for both: the difference is the wrapper's,
// steadier than a whole server's figures, and without what the server adds to it (the runs kept
// until their batch leaves, and their clone to the writer thread).
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify'
import { timeHooks } from '../plugins/profiler/panels/timeline/hook-timing.js'
import { signed } from './cpu-run.js'
import { median, round } from './stats.js'
import { mainThreadNs } from './thread-cpu.js'

/** The hooks a business request ran (its timeline, 27 November): 4 onRequest, 3 preParsing, 1 preValidation, 1 preHandler, 3 onSend, 1 onResponse. */
const HOOKS: ReadonlyArray<readonly [string, 'callback' | 'async']> = [
  ['onRequest', 'async'], ['onRequest', 'callback'], ['onRequest', 'callback'], ['onRequest', 'callback'],
  ['preParsing', 'callback'], ['preParsing', 'callback'], ['preParsing', 'callback'],
  ['preValidation', 'callback'],
  ['preHandler', 'async'],
  ['onSend', 'callback'], ['onSend', 'callback'], ['onSend', 'callback'],
  ['onResponse', 'callback']
]
/** Runs timed a request: the hooks and the handler. */
const RUNS = HOOKS.length + 1

type Done = (err?: Error | null, value?: unknown) => void
const PAYLOAD_HOOKS = new Set(['preParsing', 'onSend'])

async function hookedApp (timed: boolean): Promise<FastifyInstance> {
  const app = Fastify()
  if (timed) timeHooks(app)
  for (const [name, style] of HOOKS) {
    const hook = style === 'async'
      ? async (): Promise<void> => {}
      : PAYLOAD_HOOKS.has(name)
        ? (_request: FastifyRequest, _reply: FastifyReply, payload: unknown, done: Done): void => { done(null, payload) }
        : (_request: FastifyRequest, _reply: FastifyReply, done: Done): void => { done() }
    app.addHook(name as 'onRequest', hook as never)
  }
  app.post('/lookup', async () => ({ ok: true }))
  await app.ready()
  return app
}

/** The main thread's CPU µs a request over `requests` injected requests. */
async function block (app: FastifyInstance, requests: number): Promise<number> {
  const start = mainThreadNs()
  for (let i = 0; i < requests; i++) await app.inject({ method: 'POST', url: '/lookup', payload: { code: 'ADV1001' } })
  return (mainThreadNs() - start) / 1000 / requests
}

export async function measureHookTiming ({ rounds, requests, log }: { rounds: number, requests: number, log: (line: string) => void }): Promise<Record<string, unknown>> {
  const apps = { plain: await hookedApp(false), timed: await hookedApp(true) }
  try {
    for (let i = 0; i < 3; i++) for (const app of Object.values(apps)) await block(app, requests)
    const runs: Record<'plain' | 'timed', number[]> = { plain: [], timed: [] }
    const perRound: number[] = []
    for (let round = 0; round < rounds; round++) {
      // untimed, timed, timed, untimed: the block after another costs less than the one before it
      // (by up to a third here), so each mode takes the first place and the second once a round.
      const [a, b, c, d] = [await block(apps.plain, requests), await block(apps.timed, requests), await block(apps.timed, requests), await block(apps.plain, requests)]
      runs.plain.push((a + d) / 2)
      runs.timed.push((b + c) / 2)
      perRound.push((b + c - a - d) / 2)
    }
    const plain = round(median(runs.plain), 2)
    const timed = round(median(runs.timed), 2)
    const growth = median(perRound)
    log(`${rounds} rounds (untimed, timed, timed, untimed) of ${requests.toLocaleString('en')} injected requests, ${RUNS} runs timed a request`)
    log('| | untimed | timed | timed − untimed | a run | ratio |')
    log('|---|---|---|---|---|---|')
    log(`| main thread, CPU µs a request | ${plain} | ${timed} | ${signed(growth)} | ${(growth / RUNS).toFixed(3)} | ${round(timed / plain, 3)} |`)
    log(`timed − untimed in each round: ${perRound.map(signed).join(', ')}`)
    return { runsPerRequest: RUNS, rounds, requests, untimedUs: plain, timedUs: timed, growthUs: round(growth, 2), perRunUs: round(growth / RUNS, 3), ratio: round(timed / plain, 3), perRoundUs: perRound.map(value => round(value, 2)) }
  } finally {
    await Promise.all(Object.values(apps).map(async app => { await app.close() }))
  }
}
