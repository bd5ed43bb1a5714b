import type { FastifyInstance } from 'fastify'

// Conditions on the app's profile store for waitFor, each read after handing over what is queued.

/** Whether the store says it is failing. */
export async function storeFailing (app: FastifyInstance): Promise<boolean> {
  await app.profileStore.flush()
  return app.profileStore.healthSnapshot().state === 'failing'
}

/** Whether the store has written everything queued and says ok. */
export async function storeCaughtUp (app: FastifyInstance): Promise<boolean> {
  await app.profileStore.flush()
  const health = app.profileStore.healthSnapshot()
  return health.state === 'ok' && health.queued === 0
}
