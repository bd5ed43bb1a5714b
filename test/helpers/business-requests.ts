import type { FastifyInstance } from 'fastify'
import type { Test } from 'tap'

/**
 * `count` business requests one after the other (POST `url`, the status poll unless told, with
 * `payload` as JSON), each expected to answer 200 (any other answer fails the test and the rest
 * go on). Returns their debug tokens.
 */
export async function businessTokens (t: Test, app: FastifyInstance, count: number, { url = '/monitor/MonitorPooling', payload = {} }: { url?: string, payload?: object } = {}): Promise<string[]> {
  const tokens: string[] = []
  for (let i = 0; i < count; i++) {
    const res = await app.inject({ method: 'POST', url, headers: { 'content-type': 'application/json' }, payload })
    if (res.statusCode !== 200) t.fail(`business request answered ${res.statusCode}: ${res.body}`)
    tokens.push(res.headers['x-debug-token'] as string)
  }
  return tokens
}
