import { Type } from 'typebox'
import { ADVISOR_STATUSES } from '../../plugins/advisors/record.js'
import { AdvisorCode, ErrorResponse } from '../schemas.js'

const PollResult = Type.Object({
  status: Type.Union([Type.Literal('ok'), Type.Literal('degraded')]),
  time: Type.String({ format: 'date-time' }),
  uptimeSeconds: Type.Integer({ minimum: 0 }),
  version: Type.String(),
  checks: Type.Object({ database: Type.Union([Type.Literal('ok'), Type.Literal('failed')]) }),
  advisor: Type.Optional(Type.Object({
    code: Type.String(),
    status: Type.Enum(ADVISOR_STATUSES)
  }))
})

export const MonitorPollingSchema = {
  summary: 'Cheap status poll; with a code, also records that the advisor was seen',
  body: Type.Object({ code: Type.Optional(AdvisorCode) }),
  response: {
    200: PollResult,
    400: ErrorResponse,
    404: ErrorResponse,
    413: ErrorResponse,
    415: ErrorResponse,
    503: PollResult
  }
}
