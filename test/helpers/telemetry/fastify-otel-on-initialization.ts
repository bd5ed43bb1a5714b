// Preload (node --import): @fastify/otel as its README sets it up with an SDK, registerOnInitialization:
// the instrumentation plugin runs on every Fastify instance the process creates, as Sentry's SDK does.
import { FastifyOtelInstrumentation } from '@fastify/otel'
import { registerTracerProvider } from './tracer-provider.js'

const provider = registerTracerProvider()
const instrumentation = new FastifyOtelInstrumentation({ registerOnInitialization: true })
instrumentation.setTracerProvider(provider)
