import { Type } from 'typebox'
import { ADVISOR_STATUSES } from '../../plugins/advisors/record.js'
import { AdvisorCode, BODY_ERRORS, errorResponse } from '../schemas.js'

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
}, { description: 'The advisor' })

export const GetAdvisorByCodeSchema = {
  summary: 'Look an advisor up by code',
  operationId: 'getConseillerByCode',
  tags: ['ccenter'],
  body: Type.Object({ code: AdvisorCode }),
  response: {
    200: AdvisorRecord,
    400: errorResponse('The body is not valid JSON or not an object, or `code` is missing or invalid (the message names the field)'),
    404: errorResponse('No advisor has this code'),
    ...BODY_ERRORS,
    503: errorResponse('The advisor database is unavailable; try again later')
  }
}
