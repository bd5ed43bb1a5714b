/**
 * Resolves as soon as `condition` holds, checking every `intervalMs`; rejects after `timeoutMs`
 * naming what was awaited. For what happens in the background (the writer thread, a server).
 */
export async function waitFor (
  condition: () => boolean | Promise<boolean>,
  { timeoutMs = 10_000, intervalMs = 10, what = 'the condition' }: { timeoutMs?: number, intervalMs?: number, what?: string } = {}
): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)
    await new Promise(resolve => setTimeout(resolve, intervalMs))
  }
}
