import { Type } from 'typebox'
import { AdvisorSchema } from '../../plugins/advisors/record.js'
import { AdvisorCode, BODY_ERRORS, errorResponse } from '../schemas.js'

export const GetAdvisorByCodeSchema = {
  summary: 'Look an advisor up by code',
  operationId: 'getConseillerByCode',
  tags: ['ccenter'],
  body: Type.Object({ code: AdvisorCode }),
  response: {
    200: Type.Object(AdvisorSchema.properties, { description: 'The advisor' }),
    400: errorResponse('The body is not valid JSON or not an object, or `code` is missing or invalid (the message names the field)'),
    404: errorResponse('No advisor has this code'),
    ...BODY_ERRORS,
    503: errorResponse('The advisor database is unavailable; try again later')
  }
}
