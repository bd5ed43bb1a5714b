// Preload (node --import) for the OTLP section of the benchmark (cpu-otlp.ts): the tracing an
// application that uses @fastify/otel would run, as its README sets it up, with a batched OTLP/HTTP
// protobuf exporter (the SDK's BatchSpanProcessor defaults) sending to OTEL_EXPORTER_OTLP_ENDPOINT.
import { FastifyOtelInstrumentation } from '@fastify/otel'
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto'
import { BatchSpanProcessor } from '@opentelemetry/sdk-trace-base'
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node'

const provider = new NodeTracerProvider({ spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())] })
provider.register()
const instrumentation = new FastifyOtelInstrumentation({ registerOnInitialization: true })
instrumentation.setTracerProvider(provider)
