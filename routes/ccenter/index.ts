import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { HttpError } from '../../lib/http-error.js'
import { noAdvisorMessage } from '../schemas.js'
import { GetAdvisorByCodeSchema } from './schemas.js'

/** The contact-centre route group. */
const ccenterRoutes: FastifyPluginAsyncTypebox = async app => {
  app.post('/getConseillerByCode', { schema: GetAdvisorByCodeSchema }, async request => {
    const code = request.body.code.trim()
    const advisor = await request.advisors.findByCode(code)
    if (advisor === undefined) throw new HttpError(404, noAdvisorMessage(code), { name: 'NotFoundHttpError' })
    return advisor
  })
}

export default ccenterRoutes
