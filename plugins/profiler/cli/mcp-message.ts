import {
  ClientNotificationSchema,
  ClientRequestSchema,
  ErrorCode,
  JSONRPCErrorResponseSchema,
  JSONRPCNotificationSchema,
  JSONRPCRequestSchema,
  JSONRPCResultResponseSchema,
  RequestIdSchema,
  type JSONRPCMessage,
  type RequestId
} from '@modelcontextprotocol/sdk/types.js'
import type { z } from 'zod'
import { findJsonSyntaxError } from '../../../lib/json-syntax-error.js'

/** A JSON-RPC error answer to a line that is not a message the server can act on; `id` is null when none could be read. */
export interface RpcError { id: RequestId | null, code: number, message: string }

/** What one line of input is: a message for the SDK, or the error to answer instead. */
export type ReadLine = { message: JSONRPCMessage } | { error: RpcError }

/** The params each client method takes (the SDK's own schemas): a known method with wrong params is -32602, not the SDK's -32603. */
const PARAMS_BY_METHOD = new Map<string, z.ZodType>(
  [...ClientRequestSchema.options, ...ClientNotificationSchema.options].map(schema => [schema.shape.method.value, schema])
)

const invalidRequest = (id: RequestId | null, why: string): ReadLine =>
  ({ error: { id, code: ErrorCode.InvalidRequest, message: `Invalid Request: ${why}` } })
const invalidParams = (id: RequestId | null, why: string): ReadLine =>
  ({ error: { id, code: ErrorCode.InvalidParams, message: `Invalid params: ${why}` } })

/** Where and why a line JSON.parse refused is not JSON (the project's own reading of the grammar: nothing of the line but one character is quoted). */
function notJson (line: string): string {
  const error = findJsonSyntaxError(line)
  return error === undefined ? 'Parse error: the line is not JSON' : `Parse error: the line is not JSON (column ${error.column}: ${error.problem})`
}

function describeType (value: unknown): string {
  if (Array.isArray(value)) return 'an array'
  return value === null ? 'null' : `a ${typeof value}`
}

/** The first problem zod found, with where it is: `params.name: Invalid input: expected string, received undefined`. */
function firstIssue (error: z.ZodError): string {
  const issue = error.issues[0]
  if (issue === undefined) return 'does not match the schema'
  const where = issue.path.map(String).join('.')
  return where === '' ? issue.message : `${where}: ${issue.message}`
}

/** The request's id when it is one (a string or an integer), else null: what an error answer can carry. */
function readableId (object: Record<string, unknown>): RequestId | null {
  const id = RequestIdSchema.safeParse(object.id)
  return id.success ? id.data : null
}

/** A request or a notification (it has a "method"): its members, then its params against the method's schema. */
function readCall (object: Record<string, unknown>, id: RequestId | null): ReadLine {
  if (typeof object.method !== 'string') return invalidRequest(id, `"method" must be a string, not ${describeType(object.method)}`)
  if ('id' in object && id === null) return invalidRequest(null, '"id" must be a string or an integer')
  const params = object.params
  if ('params' in object && (typeof params !== 'object' || params === null || Array.isArray(params))) {
    return invalidParams(id, `"params" must be an object, not ${describeType(params)}`)
  }
  const framing = ('id' in object ? JSONRPCRequestSchema : JSONRPCNotificationSchema).safeParse(object)
  if (!framing.success) {
    const where = framing.error.issues[0]?.path[0]
    return where === 'params' ? invalidParams(id, firstIssue(framing.error)) : invalidRequest(id, firstIssue(framing.error))
  }
  const schema = PARAMS_BY_METHOD.get(object.method)
  const checked = schema?.safeParse(framing.data)
  if (checked !== undefined && !checked.success) return invalidParams(id, `${object.method}: ${firstIssue(checked.error)}`)
  return { message: framing.data }
}

/** A response from the client (it has a "result" or an "error"). */
function readResponse (object: Record<string, unknown>, id: RequestId | null): ReadLine {
  const parsed = ('error' in object ? JSONRPCErrorResponseSchema : JSONRPCResultResponseSchema).safeParse(object)
  return parsed.success ? { message: parsed.data } : invalidRequest(id, firstIssue(parsed.error))
}

/**
 * Reads one line of the stdio stream as a JSON-RPC 2.0 message (MCP: a single object, no batches),
 * or says which error answers it: -32700 for text that is not JSON, -32600 for JSON that is not a
 * message, -32602 for a message whose params are wrong.
 */
export function readMessage (line: string): ReadLine {
  let value: unknown
  try {
    value = JSON.parse(line)
  } catch {
    return { error: { id: null, code: ErrorCode.ParseError, message: notJson(line) } }
  }
  if (Array.isArray(value)) return invalidRequest(null, 'a batch (a JSON array) is not supported: send one message, a JSON object, a line')
  if (typeof value !== 'object' || value === null) return invalidRequest(null, `a message is a JSON object, not ${describeType(value)}`)
  const object = value as Record<string, unknown>
  const id = readableId(object)
  if (object.jsonrpc !== '2.0') return invalidRequest(id, '"jsonrpc" must be "2.0"')
  if ('method' in object) return readCall(object, id)
  if ('result' in object || 'error' in object) return readResponse(object, id)
  return invalidRequest(id, 'a message has a "method" (a request or a notification), or a "result" or an "error" (a response)')
}
