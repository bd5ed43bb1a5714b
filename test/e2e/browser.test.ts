// run-suite: shares a process
// End to end in real headless Chromium (Debian's, driven by playwright-core) against dist/server.js:
// the profiler's pages, the login, the API reference, and the Server-Timing header as a browser reads it.
import { existsSync } from 'node:fs'
import { chromium } from 'playwright-core'
import t from 'tap'
import { basicAuth } from '../helpers/profiler.js'
import { UNCOVERED, startServer } from '../helpers/server.js'
import { waitFor } from '../helpers/wait-for.js'

const CHROMIUM = '/usr/bin/chromium'
// The machine's network is closed: Chromium's background services must not try to reach out.
const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync']

/** An entry of a navigation's serverTiming, as the browser reads the Server-Timing header. */
interface ServerTiming { name: string, duration: number, description: string }

/** WCAG contrast ratio of two `rgb(r, g, b)` colours. */
function contrast (a: string, b: string): number {
  const luminance = (rgb: string): number => {
    const [r = 0, g = 0, bl = 0] = (rgb.match(/\d+(\.\d+)?/g) ?? []).map(Number).map(c => {
      const s = c / 255
      return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4
    })
    return 0.2126 * r + 0.7152 * g + 0.0722 * bl
  }
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x)
  return ((hi ?? 0) + 0.05) / ((lo ?? 0) + 0.05)
}

if (!existsSync(CHROMIUM) && process.env.CI === undefined) {
  t.plan(0, `${CHROMIUM} is not installed (apt-get install -y chromium); .ci/run installs it`)
} else {
  // One Chromium for the file, launched while the first server starts (a launch costs seconds):
  // each test has its own pages and contexts.
  const launched = chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS })
  t.teardown(async () => { await (await launched).close() })
  // Two tests at a time: each has its own server (its own profiles) and its own contexts, and
  // much of a test is waiting for the browser or for its server to start. Two servers in all (a
  // start is about 2 s of CPU), each shared by two tests.
  t.jobs = 2
  // One server behind PROFILER_SECRET for the login test and the API reference page (not a profiler
  // page; its requests are outside the login test's listing, url=nope): one start fewer, started
  // while Chromium launches, stopped once both were checked.
  const secret = 'browser-test-secret-0123'
  const secured = startServer(t, { PROFILER_SECRET: secret }, [], UNCOVERED)
  // A start that fails is said by the tests that await it; no unhandled rejection before then.
  secured.catch(() => {})

  // One server for the operator's walk and the header links, one after the other (the second
  // opens "Latest": nothing of the first may come after its requests): one start fewer, and each
  // test's traffic is told apart by its tokens.
  t.test('one server: the operator\'s walk, then the header links, then Server-Timing as the browser reads it; a clean stop', { buffered: true }, async t => {
    const server = await startServer(t, {}, [], UNCOVERED)
    const { address } = server

    await t.test('an operator finds a 404 in the listing and reads its cause chain', async t => {
      await fetch(`${address}/monitor/MonitorPooling`, { method: 'POST' })
      await fetch(`${address}/robots.txt`, { headers: { referer: `${address}/home` } })
      await fetch(`${address}/monitor/MonitorPooling`)
      // Profiles are written in the background within a few milliseconds; wait until all three are listed.
      await waitFor(async () => {
        const listing = await fetch(`${address}/_profiler/empty/search/results`, { headers: { accept: 'application/json' } })
        return (await listing.json() as { results: unknown[] }).results.length === 3
      }, { what: 'three listed profiles' })

      const browser = await launched
      const page = await browser.newPage()

      await page.goto(`${address}/_profiler`)
      t.equal(page.url(), `${address}/_profiler/empty/search/results?limit=10`, 'followed the 301 and the 302')
      t.equal(await page.locator('h1').textContent(), 'Profile Search')
      // The browser's own requests are profiled too (its GET /_profiler 301), as they land.
      const listed = await page.locator('#search-results tbody tr td:nth-child(4)').allTextContents()
      t.ok(listed.includes(`${address}/robots.txt`) && listed.includes(`${address}/monitor/MonitorPooling`), 'the listing shows the traffic')

      await page.locator('#status_code').fill('404')
      await Promise.all([page.waitForURL(/\/search\/results\?/), page.locator('form.search-form button[type=submit]').click()])
      t.match(page.url(), /\/_profiler\/[0-9a-f]{6}\/search\/results\?ip=&method=&status_code=404&url=&start=&end=&limit=10&type=request&deployment=&trace_id=&sort=time$/)
      t.match(await page.locator('.content h2').textContent(), /^\d+ results found$/)
      const statuses = await page.locator('#search-results tbody tr td:nth-child(1)').allTextContents()
      t.ok(statuses.length >= 1 && statuses.every(status => status === '404'), `only 404s: ${statuses.join(', ')}`)
      const rows = page.locator('#search-results tbody tr', { hasText: `${address}/robots.txt` })
      t.equal(await rows.count(), 1)
      const token = (await rows.locator('td a').textContent()) ?? ''
      await Promise.all([page.waitForURL(`${address}/_profiler/${token}`), rows.locator('td a').click()])
      await Promise.all([page.waitForURL(/panel=request/), page.locator('#menu-profiler a[data-panel=request]').click()])
      t.equal(await page.locator('.panel h2').textContent(), 'Request / Response')
      await Promise.all([page.waitForURL(/panel=exception/), page.locator('#menu-profiler a[data-panel=exception]').click()])
      const chain = await page.locator('#exception-chain .chain-message').allTextContents()
      t.same(chain, [
      `No route found for "GET ${address}/robots.txt" (from "${address}/home")`,
      'No routes found for "/robots.txt/".'
      ])
    })

    await t.test('header links, light and dark themes, the timeline, the cURL box, the statistics, and no /favicon.ico', async t => {
      const lookup = await fetch(`${address}/ccenter/getConseillerByCode`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer abc.def.ghi' }, body: JSON.stringify({ code: "ADV'1001" }) })
      const missing = await fetch(`${address}/robots.txt`)
      // Profiles are written in the background: the rest opens both (robots.txt as "Latest", the POST
      // from the listing). Awaited by their tokens: the first test's robots.txt is listed already.
      const tokens = [lookup, missing].map(res => res.headers.get('x-debug-token') ?? '')
      await waitFor(async () => {
        const listing = await fetch(`${address}/_profiler/empty/search/results`, { headers: { accept: 'application/json' } })
        const listed = (await listing.json() as { results: Array<{ token: string }> }).results.map(row => row.token)
        return tokens.every(token => listed.includes(token))
      }, { what: 'the POST\'s and the robots.txt profiles listed' })
      const browser = await launched
      const violations: string[] = []
      const light = await browser.newContext({ colorScheme: 'light' })
      const page = await light.newPage()
      page.on('console', message => { if (/Content Security Policy/i.test(message.text())) violations.push(message.text()) })

      // The header: "Latest" opens the newest profile; "Search profiles" the listing, type=request kept.
      await page.goto(`${address}/_profiler/empty/search/results?limit=10`)
      await Promise.all([page.waitForURL(/\/_profiler\/latest\?type=request$/), page.locator('#profiler-nav a', { hasText: 'Latest' }).click()])
      t.match(await page.locator('#summary').textContent(), /robots\.txt/)
      await Promise.all([page.waitForURL(/\/_profiler\/[0-9a-f]{6}\/search\/results\?limit=10&type=request$/), page.locator('#profiler-nav a', { hasText: 'Search profiles' }).click()])
      t.match(await page.locator('.content h2').first().textContent(), /^\d+ results found$/)

      // The POST's profile: previous/next, the cURL box with its redacted value marked, the timeline.
      const post = page.locator('#search-results tbody tr', { hasText: '/ccenter/getConseillerByCode' })
      await Promise.all([page.waitForURL(/\/_profiler\/[0-9a-f]{6}$/), post.locator('td a').click()])
      await Promise.all([page.waitForURL(/panel=request/), page.locator('#menu-profiler a[data-panel=request]').click()])
      t.equal(await page.locator('#next-profile').count(), 1, 'a link to the next profile (the 404)')
      const curl = await page.locator('#curl-command').textContent() ?? ''
      t.match(curl, /^curl '[^']+\/ccenter\/getConseillerByCode' \\/)
      t.match(curl, "--data-raw '{\"code\":\"ADV'\\''1001\"}'")
      t.same(await page.locator('#curl-command mark.redacted').allTextContents(), ['[redacted]'], 'the redacted Authorization is marked')
      await Promise.all([page.waitForURL(/panel=performance/), page.locator('#menu-profiler a[data-panel=performance]').click()])
      const bar = await page.locator('#timeline').boundingBox()
      const widths = await page.locator('#timeline rect').evaluateAll(rects => rects.map(rect => rect.getBoundingClientRect().width))
      t.ok(bar !== null && bar.width > 200 && bar.height > 10, 'the timeline is drawn')
      t.ok(Math.abs(widths.reduce((a, b) => a + b, 0) - (bar?.width ?? 0)) < 2, `the phases fill the bar: ${widths.join(', ')}`)
      t.match(await page.locator('#performance').textContent(), /\d+(\.\d)? MiB/)

      // Statistics, from the header.
      await Promise.all([page.waitForURL(/\/_profiler\/stats$/), page.locator('#profiler-nav a', { hasText: 'Route statistics' }).click()])
      const routes = await page.locator('#route-stats tbody td.url a').allTextContents()
      t.ok(routes.includes('/ccenter/getConseillerByCode') && routes.includes('(no route matched)'), routes.join(', '))

      // Light and dark: different colours, both legible.
      const colours = async (scheme: 'light' | 'dark') => {
        await page.emulateMedia({ colorScheme: scheme })
        return await page.evaluate('[getComputedStyle(document.body).color, getComputedStyle(document.body).backgroundColor, getComputedStyle(document.querySelector("#route-stats")).backgroundColor]') as string[]
      }
      const [lightText = '', lightBody = '', lightCell = ''] = await colours('light')
      const [darkText = '', darkBody = '', darkCell = ''] = await colours('dark')
      t.not(lightBody, darkBody, 'the background follows the system theme')
      t.not(lightText, darkText, 'and the text too')
      for (const [text, background] of [[lightText, lightBody], [lightText, lightCell], [darkText, darkBody], [darkText, darkCell]] as const) {
        t.ok(contrast(text, background) >= 7, `${text} on ${background}: contrast ${contrast(text, background).toFixed(1)}`)
      }

      await light.close()
      const profiled = await fetch(`${address}/_profiler/empty/search/results?url=favicon&limit=100`, { headers: { accept: 'application/json' } })
      t.same((await profiled.json() as { results: unknown[] }).results, [], 'the browser never asked for /favicon.ico')
      t.same(violations, [], 'no CSP violation')
    })

    // Once the listing tests are done (its profiles come after theirs): a browser's own view of the header.
    await t.test('a form posted to the status poll: the navigation\'s serverTiming holds db (3 queries) and app', async t => {
      const browser = await launched
      const page = await browser.newPage()
      // A page of the same origin, then a real form navigation (the body transformer takes forms):
      // the poll checks the database, finds the advisor and records that it was seen.
      await page.goto(`${address}/robots.txt`)
      await Promise.all([
        page.waitForURL(`${address}/monitor/MonitorPooling`),
        // A string: the tests compile without the DOM's types.
        page.evaluate(`{
          const form = document.createElement('form')
          form.method = 'post'
          form.action = '/monitor/MonitorPooling'
          const field = document.createElement('input')
          field.name = 'code'
          field.value = 'ADV1001'
          form.append(field)
          document.body.append(form)
          form.submit()
        }`)
      ])
      const timing = await page.evaluate(
        "performance.getEntriesByType('navigation')[0].serverTiming.map(({ name, duration, description }) => ({ name, duration, description }))"
      ) as ServerTiming[]
      t.same(timing.map(entry => entry.name), ['db', 'app'])
      const [db, app] = timing
      t.equal(db?.description, '3 queries', 'SELECT 1, the lookup, the last-seen UPDATE')
      t.ok((db?.duration ?? 0) > 0, `db took ${db?.duration ?? 0} ms`)
      t.ok((app?.duration ?? 0) >= (db?.duration ?? 0), `app (${app?.duration ?? 0} ms) includes db`)
      await page.close()
    })
    t.equal(await server.stop(), 0, 'exits 0 after a graceful close')
  })

  t.test('one server behind PROFILER_SECRET: the login and the API reference page, then a clean stop', { buffered: true }, async t => {
    t.jobs = 2
    const login = t.test('behind PROFILER_SECRET: the browser logs in, the CSP keeps the styles and stops injected markup', { buffered: true }, async t => {
      const server = await secured
      const { address } = server
      const xss = '<img src=x onerror="alert(1)"><script>alert(2)</script>'
      const attack = await fetch(`${address}/nope/${encodeURIComponent(xss)}`, { headers: { 'user-agent': xss, referer: `${address}/${xss}` } })
      const token = attack.headers.get('x-debug-token') ?? ''
      const authorization = basicAuth(secret)
      // Profiles are written in the background: wait until this one can be read.
      await waitFor(async () => (await fetch(`${address}/_profiler/${token}`, { headers: { accept: 'application/json', authorization } })).status === 200,
        { what: `profile ${token}` })

      const browser = await launched
      const anonymous = await browser.newPage()
      // Headless Chromium answers a Basic challenge it has no credentials for with this error.
      await t.rejects(anonymous.goto(`${address}/_profiler/latest`), /ERR_INVALID_AUTH_CREDENTIALS/, 'no credentials: challenged')

      const context = await browser.newContext({ httpCredentials: { username: 'operator', password: secret } })
      const page = await context.newPage()
      const dialogs: string[] = []
      const violations: string[] = []
      page.on('dialog', dialog => { dialogs.push(dialog.message()); dialog.dismiss().catch(() => {}) })
      page.on('console', message => { if (/Content Security Policy/i.test(message.text())) violations.push(message.text()) })
      await page.goto(`${address}/_profiler/empty/search/results?url=nope`)
      // Chromium's first try of each page goes without credentials: those 401s are listed too.
      const tokens = await page.locator('#search-results tbody tr td a').allTextContents()
      t.ok(tokens.includes(token), `listed among ${tokens.length}`)
      t.equal((await page.goto(`${address}/_profiler/${token}?panel=request`))?.status(), 200)
      t.match(await page.content(), '&lt;script&gt;alert(2)&lt;/script&gt;', 'the injected markup is shown as text')
      const headerBackground = await page.evaluate('getComputedStyle(document.querySelector("header")).backgroundColor')
      t.equal(headerBackground, 'rgb(24, 24, 27)', 'the layout\'s own style block is allowed by its hash')
      t.same(dialogs, [], 'no script ran')
      t.same(violations, [], 'no CSP violation on our own pages')
    })

    const reference = t.test('the API reference page renders both operations under its own CSP', { buffered: true }, async t => {
      const server = await secured
      const browser = await launched
      const page = await browser.newPage()
      const problems: string[] = []
      page.on('console', message => { if (message.type() === 'error') problems.push(message.text()) })
      page.on('pageerror', error => { problems.push(String(error)) })
      // Said if the page never renders (it once timed out beside CI's CPU hog, cause unseen).
      const failed: string[] = []
      page.on('response', response => { if (response.status() >= 400) failed.push(`${response.status()} ${response.url()}`) })
      await page.goto(`${server.address}/docs/`)
      await page.locator('.opblock-summary-path').first().waitFor().catch((err: Error) => {
        throw new Error(`${err.message}\nfailed responses: ${failed.join(', ') || 'none'}; errors: ${problems.join(', ') || 'none'}`)
      })
      t.same(await page.locator('.opblock-summary-path').allTextContents(), ['/ccenter/getConseillerByCode', '/monitor/MonitorPooling'])
      t.same(problems, [], 'no CSP violation, no script error')
      await page.close()
    })
    await Promise.all([login, reference])
    t.equal(await (await secured).stop(), 0, 'exits 0 after a graceful close')
  })
}
