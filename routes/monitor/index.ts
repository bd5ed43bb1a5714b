import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { HttpError } from '../../lib/http-error.js'
import { noAdvisorMessage } from '../schemas.js'
import { MonitorPollingSchema } from './schemas.js'

/** The monitoring route group: a status poll that clients call many times a minute. */
const monitorRoutes: FastifyPluginAsyncTypebox = async app => {
  const startedAt = Date.now()

  app.post('/MonitorPooling', { schema: MonitorPollingSchema }, async (request, reply) => {
    const now = new Date()
    const base = {
      time: now.toISOString(),
      uptimeSeconds: Math.floor((now.getTime() - startedAt) / 1000),
      version: app.config.version
    }
    try {
      await request.advisors.check()
      app.databaseOutages.reportRecovery()
    } catch (err) {
      // The database logs the outage once; each failed poll does not log again.
      const cause = (err as Error).cause
      app.databaseOutages.reportOutage((cause instanceof Error ? cause : err as Error).message)
      return reply.code(503).send({ status: 'degraded' as const, ...base, checks: { database: 'failed' as const } })
    }
    const poll = { status: 'ok' as const, ...base, checks: { database: 'ok' as const } }
    if (request.body.code === undefined) return poll
    const code = request.body.code.trim()
    const advisor = await request.advisors.findByCode(code)
    if (advisor === undefined) throw new HttpError(404, noAdvisorMessage(code), { name: 'NotFoundHttpError' })
    await request.advisors.recordSeen(code, now)
    return { ...poll, advisor: { code: advisor.code, status: advisor.status } }
  })
}

export default monitorRoutes
