// The schema compilers shared by every app this process builds (app.ts). The route schemas are
// module constants, so each is compiled once per process instead of once per app: one app in
// production, ~200 in the test suite (`npm run bench -- --only=suite`: the first app of a process
// against the next ones).
import { AjvCompiler } from '@fastify/ajv-compiler'
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler'

type SerializerFactory = ReturnType<typeof SerializerSelector>
type Serializer = ReturnType<ReturnType<SerializerFactory>>

/**
 * Ajv keeps what it compiled by schema object. Fastify calls a compiler of our own "custom" and
 * then leaves header schemas as written: the routes have none.
 */
export const validatorCompiler = AjvCompiler()

/**
 * fast-json-stringify keeps nothing: the serializer of each response schema object is kept here,
 * for the apps built with the same shared schemas and options.
 */
function sharedSerializerCompiler (): SerializerFactory {
  const build = SerializerSelector()
  const byOptions = new Map<string, WeakMap<object, Serializer>>()
  return (externalSchemas, options) => {
    const compile = build(externalSchemas, options)
    const key = JSON.stringify([externalSchemas ?? null, options ?? null])
    const cache = byOptions.get(key) ?? new WeakMap<object, Serializer>()
    byOptions.set(key, cache)
    return route => {
      if (typeof route.schema !== 'object' || route.schema === null) return compile(route)
      const known = cache.get(route.schema)
      if (known !== undefined) return known
      const serializer = compile(route)
      cache.set(route.schema, serializer)
      return serializer
    }
  }
}

export const serializerCompiler = sharedSerializerCompiler()
