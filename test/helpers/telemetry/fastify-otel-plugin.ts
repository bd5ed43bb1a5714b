// Preload (node --import): @fastify/otel registered as a plugin (`app.register(instrumentation.plugin())`,
// its README's way) on each Fastify instance as it is created, before any of the app's own plugins:
// what an application that edits its own start-up does, from outside our code.
import { subscribe } from 'node:diagnostics_channel'
import { FastifyOtelInstrumentation } from '@fastify/otel'
import type { FastifyInstance } from 'fastify'
import { registerTracerProvider } from './tracer-provider.js'

const provider = registerTracerProvider()
const instrumentation = new FastifyOtelInstrumentation()
instrumentation.setTracerProvider(provider)
subscribe('fastify.initialization', message => {
  // Queued before the app's own plugins: avvio loads it at the app's first await.
  (message as { fastify: FastifyInstance }).fastify.register(instrumentation.plugin())
})
