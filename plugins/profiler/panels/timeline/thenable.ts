// What Fastify and avvio take as a promise: anything with a `then` method.
export const isThenable = (value: unknown): value is PromiseLike<unknown> =>
  typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function'
