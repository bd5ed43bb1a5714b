// The schema compilers shared by every app this process builds (app.ts). The route schemas are
// module constants, so each is compiled once per process instead of once per app: one app in
// production, ~200 in the test suite (`npm run bench -- --only=suite`: the first app of a process
// against the next ones).
import { AjvCompiler } from '@fastify/ajv-compiler'
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler'

type SerializerFactory = ReturnType<typeof SerializerSelector>
type Serializer = ReturnType<ReturnType<SerializerFactory>>
type ValidatorFactory = ReturnType<typeof AjvCompiler>
type Validator = ReturnType<ReturnType<ValidatorFactory>>

/**
 * Each route's validator compiled at its first use rather than when the app starts: most of the
 * profiler's routes are never called by a given process, and compiling them all was about 0.45 s
 * of a start's 5.1 s of main-thread CPU (a CPU profile, profiler on). Fastify reads a failed validation's `errors` from the function it holds.
 */
function lazyValidators (factory: ValidatorFactory): ValidatorFactory {
  return (externalSchemas, options) => {
    const build = factory(externalSchemas, options)
    return route => {
      let compiled: Validator | null = null
      const validate = function (this: unknown, ...args: unknown[]): unknown {
        compiled ??= build(route)
        const result = (compiled as (...a: unknown[]) => unknown).apply(this, args)
        ;(validate as { errors?: unknown }).errors = (compiled as { errors?: unknown }).errors
        return result
      }
      return validate as unknown as Validator
    }
  }
}

/** Each route's serializer compiled at its first use (see lazyValidators). */
function lazySerializers (factory: SerializerFactory): SerializerFactory {
  return (externalSchemas, options) => {
    const build = factory(externalSchemas, options)
    return route => {
      let compiled: Serializer | null = null
      return (data => (compiled ??= build(route))(data)) as Serializer
    }
  }
}

/**
 * Ajv keeps what it compiled by schema object. Fastify calls a compiler of our own "custom" and
 * then leaves header schemas as written: the routes have none.
 */
export const validatorCompiler = lazyValidators(AjvCompiler())

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

export const serializerCompiler = lazySerializers(sharedSerializerCompiler())
