import { Type } from 'typebox'
import { ADVISOR_STATUSES } from '../../plugins/advisors/record.js'
import { AdvisorCode, BODY_ERRORS, ErrorResponse, errorResponse } from '../schemas.js'

const PollResult = Type.Object({
  status: Type.Union([Type.Literal('ok'), Type.Literal('degraded')]),
  time: Type.String({ format: 'date-time' }),
  uptimeSeconds: Type.Integer({ minimum: 0 }),
  version: Type.String(),
  checks: Type.Object({ database: Type.Union([Type.Literal('ok'), Type.Literal('failed')]) }),
  advisor: Type.Optional(Type.Object({
    code: Type.String(),
    status: Type.Enum(ADVISOR_STATUSES)
  }, { description: 'Only when a code was sent' }))
})

export const MonitorPollingSchema = {
  summary: 'Cheap status poll; with a code, also records that the advisor was seen',
  operationId: 'monitorPolling',
  tags: ['monitor'],
  body: Type.Object({ code: Type.Optional(AdvisorCode) }, { description: 'Optional: an empty body or `{}` is a plain poll' }),
  response: {
    200: Type.Object(PollResult.properties, { description: 'The service and its database answer' }),
    400: errorResponse('The body is not valid JSON or not an object, or `code` is invalid'),
    404: errorResponse('A code was sent and no advisor has it'),
    ...BODY_ERRORS,
    // The check failing is the degraded poll; the database failing after the check (busy, locked
    // while recording the advisor) is the error shape, like every other 503.
    503: Type.Union([PollResult, ErrorResponse], { description: 'The database does not answer: the degraded poll, or the error shape when it fails after the check' })
  }
}
