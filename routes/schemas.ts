import { Type } from 'typebox'
import { CODE_MAX_LENGTH } from '../plugins/advisors/record.js'

/** The body of every error response (see plugins/error-renderer.ts). */
export const ErrorResponse = Type.Object({
  statusCode: Type.Integer(),
  error: Type.String(),
  message: Type.String()
})

/** A code as clients send it: surrounding whitespace is ignored, 1 to 64 characters remain. */
export const AdvisorCode = Type.String({ minLength: 1, maxLength: CODE_MAX_LENGTH, pattern: '\\S' })

export function noAdvisorMessage (code: string): string {
  return `No advisor found for code "${code}"`
}
