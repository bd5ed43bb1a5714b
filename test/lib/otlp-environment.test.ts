// run-suite: shares a process
// PROFILER_OTLP_ENDPOINT and the OpenTelemetry SDKs' own variables, read through loadConfig as the
// service reads them: the endpoint (`otel`: the SDKs' URL), protocol, headers, timeout and the
// resource; a bad value stops the start naming the variable and never repeating a header's value.
// The environment panel shows the headers' names only.
import t from 'tap'
import { ConfigError, loadConfig } from '../../config.js'
import { buildTestApp } from '../helpers/app.js'

t.test('off unless PROFILER_OTLP_ENDPOINT is set, whatever OTEL_* says', async t => {
  t.equal(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }).profilerOtlp, null)
  t.equal(loadConfig({ PROFILER_OTLP_ENDPOINT: ' ' }).profilerOtlp, null)
})

t.test('the endpoint: a base URL gets v1/traces, `otel` takes the SDKs\' variables', async t => {
  const url = (env: Record<string, string>): string | undefined => loadConfig(env).profilerOtlp?.url
  t.equal(url({ PROFILER_OTLP_ENDPOINT: 'http://localhost:4318' }), 'http://localhost:4318/v1/traces')
  t.equal(url({ PROFILER_OTLP_ENDPOINT: 'https://otlp.example/base/' }), 'https://otlp.example/base/v1/traces')
  t.equal(url({ PROFILER_OTLP_ENDPOINT: 'otel' }), 'http://localhost:4318/v1/traces', 'the SDKs\' default')
  t.equal(url({ PROFILER_OTLP_ENDPOINT: 'otel', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/otlp' }), 'http://collector:4318/otlp/v1/traces')
  t.equal(url({ PROFILER_OTLP_ENDPOINT: 'otel', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://traces:9999/custom' }), 'http://traces:9999/custom', 'the signal\'s own URL as is')
})

t.test('protocol, headers, timeout, resource', async t => {
  const otlp = loadConfig({
    PROFILER_OTLP_ENDPOINT: 'http://localhost:4318',
    PROFILER_DEPLOYMENT: 'green-2',
    NODE_ENV: 'test',
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    OTEL_EXPORTER_OTLP_HEADERS: 'authorization=Basic%20YWxhZGRpbjpvcGVuc2VzYW1l, x-scope = a ',
    OTEL_EXPORTER_OTLP_TRACES_HEADERS: 'x-scope=traces',
    OTEL_EXPORTER_OTLP_TIMEOUT: '2500',
    OTEL_RESOURCE_ATTRIBUTES: 'service.name=from-attributes,service.version=9.9,k8s.pod.name=pod%2C1'
  }).profilerOtlp
  t.match(otlp, {
    protocol: 'http/json',
    headers: { authorization: 'Basic YWxhZGRpbjpvcGVuc2VzYW1l', 'x-scope': 'traces' },
    timeoutMs: 2500,
    resource: { 'service.name': 'from-attributes', 'service.version': '9.9', 'deployment.environment.name': 'test', 'service.instance.id': 'green-2', 'k8s.pod.name': 'pod,1' }
  })
  t.equal(loadConfig({ PROFILER_OTLP_ENDPOINT: 'http://h:1', OTEL_SERVICE_NAME: 'named', OTEL_RESOURCE_ATTRIBUTES: 'service.name=other' }).profilerOtlp?.resource['service.name'], 'named', 'OTEL_SERVICE_NAME first')
  t.equal(loadConfig({ PROFILER_OTLP_ENDPOINT: 'http://h:1', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', PROFILER_OTLP_PROTOCOL: 'http/protobuf' }).profilerOtlp?.protocol, 'http/protobuf', 'PROFILER_OTLP_PROTOCOL first')
  t.equal(loadConfig({ PROFILER_OTLP_ENDPOINT: 'http://h:1' }).profilerOtlp?.protocol, 'http/protobuf', 'protobuf by default')
})

t.test('a bad value stops the start, naming the variable, never a header\'s value', async t => {
  const cases: Array<[Record<string, string>, RegExp]> = [
    [{ PROFILER_OTLP_ENDPOINT: 'localhost:4318' }, /PROFILER_OTLP_ENDPOINT must be an http\(s\) URL/],
    [{ PROFILER_OTLP_ENDPOINT: 'otel', OTEL_EXPORTER_OTLP_ENDPOINT: 'ftp://x' }, /OTEL_EXPORTER_OTLP_ENDPOINT must be an http\(s\) URL/],
    [{ PROFILER_OTLP_ENDPOINT: 'http://h:1', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }, /http\/protobuf or http\/json/],
    [{ PROFILER_OTLP_ENDPOINT: 'http://h:1', OTEL_EXPORTER_OTLP_HEADERS: 'api-key-secret-value' }, /OTEL_EXPORTER_OTLP_HEADERS must be a comma-separated list of key=value pairs/],
    [{ PROFILER_OTLP_ENDPOINT: 'http://h:1', OTEL_EXPORTER_OTLP_HEADERS: 'key=secret%zz' }, /OTEL_EXPORTER_OTLP_HEADERS holds a part that is not percent-encoded/],
    [{ PROFILER_OTLP_ENDPOINT: 'http://h:1', OTEL_EXPORTER_OTLP_TIMEOUT: 'soon' }, /OTEL_EXPORTER_OTLP_TIMEOUT must be a positive number/]
  ]
  for (const [env, message] of cases) {
    const error = t.throws(() => loadConfig(env)) as Error
    t.ok(error instanceof ConfigError)
    t.match(error.message, message)
    t.notMatch(error.message, /secret/)
  }
})

t.test('the environment panel shows the headers\' names, not their values', async t => {
  const app = await buildTestApp(t, { PROFILER_OTLP_ENDPOINT: 'http://127.0.0.1:9', OTEL_EXPORTER_OTLP_HEADERS: 'x-api-key=hunter2-hunter2' })
  const res = await app.inject({ method: 'POST', url: '/monitor/MonitorPooling', headers: { 'content-type': 'application/json' }, payload: '{}' })
  await app.profileStore.flush()
  const profile = (await app.inject({ url: `/_profiler/${String(res.headers['x-debug-token'])}?panel=env`, headers: { accept: 'application/json' } })).json()
  t.match(profile.panels.env.configuration.profilerOtlp, { url: 'http://127.0.0.1:9/v1/traces', headers: ['x-api-key'] })
  t.notMatch(JSON.stringify(profile), 'hunter2')
  t.notMatch((await app.inject({ url: `/_profiler/${String(res.headers['x-debug-token'])}?panel=env` })).body, 'hunter2', 'nor the page')
})
