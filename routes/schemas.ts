import { Type } from 'typebox'

/** The body of every error response (see plugins/error-renderer.ts). */
export const ErrorResponse = Type.Object({
  statusCode: Type.Integer(),
  error: Type.String(),
  message: Type.String()
})

/** A code as clients send it: surrounding whitespace is ignored, 1 to 64 characters remain. */
export const AdvisorCode = Type.String({ minLength: 1, maxLength: 64, pattern: '\\S' })

export function noAdvisorMessage (code: string): string {
  return `No advisor found for code "${code}"`
}
