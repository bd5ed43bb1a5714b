import { Type } from 'typebox'
import { CODE_MAX_LENGTH } from '../plugins/advisors/record.js'
import { ErrorResponse } from '../plugins/error-renderer.js'

export { ErrorResponse }

/** An error response with what it means for this route (the OpenAPI document shows the description). */
export function errorResponse (description: string) {
  return Type.Object(ErrorResponse.properties, { description })
}

/** Errors of the request-body transformer (plugins/request-body/), shared by every route with a body. */
export const BODY_ERRORS = {
  413: errorResponse('The body is larger than 1 MiB'),
  415: errorResponse('The body is not JSON or a form (`application/json`, `application/*+json`, `application/x-www-form-urlencoded`)')
}

/** A code as clients send it: surrounding whitespace is ignored, 1 to 64 characters remain. */
export const AdvisorCode = Type.String({ minLength: 1, maxLength: CODE_MAX_LENGTH, pattern: '\\S' })

export function noAdvisorMessage (code: string): string {
  return `No advisor found for code "${code}"`
}
