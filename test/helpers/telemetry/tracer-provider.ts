// A tracer provider as an application that traces would register one, its spans kept in memory:
// nothing leaves the process (the tests make no call beyond loopback).
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base'
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node'

export function registerTracerProvider (): NodeTracerProvider {
  const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(new InMemorySpanExporter())] })
  provider.register()
  return provider
}
