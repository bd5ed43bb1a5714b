// run-suite: shares a process
// X-Forwarded-Proto/-Host/-For behind TRUST_PROXY, through a real socket: only http and https are
// a scheme (anything else is a 400 naming the header, profiled), and every URL the service
// reports, stores and exports is scheme://host[:port]/path with a host the request named.
import fc from 'fast-check'
import t from 'tap'
import { INVALID_HOST } from '../../plugins/routing/host.js'
import { listeningApp } from '../helpers/app.js'
import { onOrigin, profileUrls } from '../helpers/exported-urls.js'
import { hostileText } from '../helpers/hostile.js'
import { rawAnswer } from '../helpers/raw-http.js'

/** The origin of the Host every request here sends. */
const ORIGIN = 'http://localhost'

/** GET `path` with Host localhost and the given headers, the connection closed after the answer. */
const request = (path: string, headers: Record<string, string>): string =>
  `GET ${path} HTTP/1.1\r\nHost: localhost\r\n${Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`).join('')}Connection: close\r\n\r\n`

t.test('TRUST_PROXY: X-Forwarded-Proto "https://evil.test/#" is a 400 naming the header; Location, link, stored and exported URLs stay on this service', async t => {
  const { app, address } = await listeningApp(t, { TRUST_PROXY: 'on' })
  const res = await rawAnswer(address, request('/_profiler', { 'X-Forwarded-Proto': 'https://evil.test/#' }))
  t.equal(res.status, 400)
  t.equal(JSON.parse(res.body).message, 'Invalid X-Forwarded-Proto "https://evil.test/#": only http and https are a scheme.')
  t.equal(res.headers.location, undefined, 'no redirect to https://evil.test/#://localhost/_profiler/')
  const token = res.headers['x-debug-token'] ?? ''
  t.equal(res.headers['x-debug-token-link'], `http://localhost/_profiler/${token}`, 'the link has the connection\'s scheme')
  const url = 'http://localhost/_profiler'
  t.same(await profileUrls(app, token), { stored: url, listed: url, curl: url, har: url })

  const javascript = await rawAnswer(address, request('/nope', { 'X-Forwarded-Proto': 'javascript' }))
  t.equal(JSON.parse(javascript.body).message, 'Invalid X-Forwarded-Proto "javascript": only http and https are a scheme.')
  const https = await rawAnswer(address, request('/_profiler', { 'X-Forwarded-Proto': 'HTTPS', 'X-Forwarded-Host': 'Public.Example.TEST:443' }))
  t.equal(https.status, 301, 'https from the proxy, in any case, is the scheme')
  t.equal(https.headers.location, 'https://public.example.test/_profiler/')
  t.equal(https.headers['x-debug-token-link'], `https://public.example.test/_profiler/${https.headers['x-debug-token']}`)
  const badHost = await rawAnswer(address, request('/nope', { 'X-Forwarded-Host': 'evil.test/#' }))
  t.equal(JSON.parse(badHost.body).message, 'Invalid X-Forwarded-Host "evil.test/#".', 'an invalid forwarded host names its header')
  t.equal(badHost.headers['x-debug-token-link'], `http://${INVALID_HOST}/_profiler/${badHost.headers['x-debug-token']}`)
})

/** A header value as an attacker writes it: the shapes that matter, or any text (no line break: it would end the header). */
const headerValue = (shapes: fc.Arbitrary<string>): fc.Arbitrary<string | null> =>
  fc.option(fc.oneof(shapes, hostileText(10, 3)).map(value => value.replace(/[\r\n]/g, '')), { nil: null, freq: 2 })
const proto = headerValue(fc.constantFrom('http', 'https', 'HTTPS', ' https ', 'https://evil.test/#', 'http, https', 'https, evil', 'javascript', 'ftp', 'https:', ''))
const host = headerValue(fc.oneof(fc.domain(), fc.constantFrom('evil.test', 'localhost:8080', 'LOCALHOST:80', '[::1]:3000', 'a@b', 'x/y', 'evil.test#', 'a, b.test', '127.0.0.2:18099/steal')))
const forwardedFor = headerValue(fc.oneof(fc.ipV4(), fc.ipV6(), fc.constantFrom('<script>', '127.0.0.1, 10.0.0.1', 'unknown')))

/** How the server reads a header value: Latin-1 bytes (sent as UTF-8), without surrounding blanks; the last of a comma-separated list. */
const asRead = (value: string): string => Buffer.from(value, 'utf8').toString('latin1').replace(/^[ \t]+|[ \t]+$/g, '')
const lastEntry = (value: string): string => (value.split(',').pop() ?? '').trim()

t.test('generated X-Forwarded-Proto/-Host/-For: every Location, link, stored and exported URL is on a host the request named, with http or https, or the answer is a 400', async t => {
  const { app, address } = await listeningApp(t, { TRUST_PROXY: 'on' })
  const seen = { refused: 0, answered: 0 }
  await fc.assert(fc.asyncProperty(proto, host, forwardedFor, fc.constantFrom('/_profiler', '/nope', '/_profiler/empty/search/results?limit=1'),
    async (xfp, xfh, xff, path) => {
      const headers: Record<string, string> = {}
      if (xfp !== null) headers['X-Forwarded-Proto'] = xfp
      if (xfh !== null) headers['X-Forwarded-Host'] = xfh
      if (xff !== null) headers['X-Forwarded-For'] = xff
      const res = await rawAnswer(address, request(path, headers))
      if (res.status === 0 || res.status >= 500) return false
      const token = res.headers['x-debug-token']
      seen[res.status === 400 ? 'refused' : 'answered']++
      // Node's parser refused the bytes (a NUL in a value): the service's 400, profiled on the Host's
      // origin (forwarded headers are not believed from bytes the parser refused).
      if (res.status === 400 && (JSON.parse(res.body).message as string).startsWith('The HTTP parser rejected the request: ')) {
        return token !== undefined && onOrigin(res.headers['x-debug-token-link'], ORIGIN) && Object.values(await profileUrls(app, token)).every(url => onOrigin(url, ORIGIN))
      }
      // A scheme other than http/https is a 400 naming the header.
      const scheme = xfp === null ? '' : asRead(xfp)
      if (scheme !== '' && !/^https?$/i.test(lastEntry(scheme))) {
        if (res.status !== 400) return false
        if (token !== undefined && !(JSON.parse(res.body).message as string).startsWith('Invalid X-Forwarded-Proto "')) return false
      }
      // Without a profile: Node's parser refused the bytes (400), or a profiler page answered (not recorded).
      if (token === undefined) return res.status === 400 || (res.status === 200 && path.startsWith('/_profiler/empty'))
      const named = xfh === null || asRead(xfh) === '' ? 'localhost' : lastEntry(asRead(xfh)).toLowerCase()
      const hosts = [named, named.replace(/:(80|443)$/, ''), ...(res.status === 400 ? [INVALID_HOST] : [])]
      const origins = ['http', 'https'].flatMap(scheme => hosts.map(host => `${scheme}://${host}`))
      const ours = (url: string | undefined): boolean => origins.some(origin => onOrigin(url, origin))
      const location = res.headers.location
      if (location !== undefined && !ours(location) && !/^\/(?![/\\])/.test(location)) return false
      if (!ours(res.headers['x-debug-token-link'])) return false
      return Object.values(await profileUrls(app, token)).every(ours)
    }), { numRuns: 150, seed: 2201 })
  t.ok(seen.refused > 0 && seen.answered > 0, `both kinds of answer were tried (${JSON.stringify(seen)})`)
})
