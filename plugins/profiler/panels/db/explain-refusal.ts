import { HttpError } from '../../../../lib/http-error.js'

/** The 422 of a statement the Explain page will not, or could not, plan: `why` ends the sentence. */
export function cannotExplain (why: string): HttpError {
  return new HttpError(422, `This statement cannot be explained: ${why}.`, { name: 'UnprocessableEntityError' })
}
