import { Type } from 'typebox'
import { AdvisorSchema } from '../../plugins/advisors/record.js'
import { AdvisorCode, ErrorResponse } from '../schemas.js'

export const GetAdvisorByCodeSchema = {
  summary: 'Look an advisor up by code',
  body: Type.Object({ code: AdvisorCode }),
  response: {
    200: AdvisorSchema,
    400: ErrorResponse,
    404: ErrorResponse,
    413: ErrorResponse,
    415: ErrorResponse
  }
}
