import { Type } from 'typebox'
import { ADVISOR_STATUSES } from '../../plugins/advisors/record.js'
import { AdvisorCode, ErrorResponse } from '../schemas.js'

export const AdvisorRecord = Type.Object({
  code: Type.String(),
  firstName: Type.String(),
  lastName: Type.String(),
  email: Type.String(),
  team: Type.String(),
  phoneExtension: Type.Union([Type.String(), Type.Null()]),
  status: Type.Enum(ADVISOR_STATUSES),
  lastSeenAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  updatedAt: Type.String({ format: 'date-time' })
})

export const GetAdvisorByCodeSchema = {
  summary: 'Look an advisor up by code',
  body: Type.Object({ code: AdvisorCode }),
  response: {
    200: AdvisorRecord,
    400: ErrorResponse,
    404: ErrorResponse,
    413: ErrorResponse,
    415: ErrorResponse
  }
}
