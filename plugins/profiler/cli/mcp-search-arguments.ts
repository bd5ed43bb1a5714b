// MCP's search_profiles input schema, one optional argument per search filter with an option
// (search-options.ts), in zod as the MCP SDK takes it. Apart from search-options.ts so that zod
// (~70 ms of CPU to load) is loaded by the `mcp` command only, not by every command line run.
import { z } from 'zod'
import type { ArgumentType } from '../search-filter-declarations.js'
import { camelCase, withOption } from './search-options.js'

function argumentType (type: ArgumentType, maxLength: number): z.ZodType<string | number> {
  switch (type.kind) {
    case 'text': return z.string().max(maxLength)
    case 'integer': return type.max === undefined ? z.number().int().min(type.min) : z.number().int().min(type.min).max(type.max)
    case 'number': return z.number().min(type.min)
    case 'choice': return z.enum(type.values)
  }
}

/** search_profiles' input schema: one optional argument per option. */
export function searchArguments (): Record<string, z.ZodOptional<z.ZodType<string | number>>> {
  return Object.fromEntries(withOption.map(({ maxLength, option }) =>
    [camelCase(option.name), argumentType(option.type, maxLength).optional().describe(option.description)]))
}
