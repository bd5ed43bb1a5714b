// End to end in real headless Chromium (Debian's, driven by playwright-core) against dist/server.js.
import { existsSync } from 'node:fs'
import { chromium } from 'playwright-core'
import t from 'tap'
import { startServer } from '../helpers/server.js'

const CHROMIUM = '/usr/bin/chromium'
// The machine's network is closed: Chromium's background services must not try to reach out.
const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync']

if (!existsSync(CHROMIUM) && process.env.CI === undefined) {
  t.plan(0, `${CHROMIUM} is not installed (apt-get install -y chromium); .ci/run installs it`)
} else {
  t.test('an operator finds a 404 in the listing and reads its cause chain', async t => {
    const server = await startServer(t)
    const { address } = server
    await fetch(`${address}/monitor/MonitorPooling`, { method: 'POST' })
    await fetch(`${address}/robots.txt`, { headers: { referer: `${address}/home` } })
    await fetch(`${address}/monitor/MonitorPooling`)
    // Profiles are written in the background within a few milliseconds; wait until all three are listed.
    for (let i = 0; i < 50; i++) {
      const listing = await fetch(`${address}/_profiler/empty/search/results`, { headers: { accept: 'application/json' } })
      if ((await listing.json() as { results: unknown[] }).results.length === 3) break
      await new Promise(resolve => setTimeout(resolve, 20))
    }

    const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS })
    t.teardown(() => browser.close())
    const page = await browser.newPage()

    await page.goto(`${address}/_profiler`)
    t.equal(page.url(), `${address}/_profiler/empty/search/results?limit=10`, 'followed the 301 and the 302')
    t.equal(await page.locator('h1').textContent(), 'Profile Search')
    // The browser's own requests are profiled too (its GET /_profiler, a /favicon.ico 404), as they land.
    const listed = await page.locator('#search-results tbody tr td:nth-child(4)').allTextContents()
    t.ok(listed.includes(`${address}/robots.txt`) && listed.includes(`${address}/monitor/MonitorPooling`), 'the listing shows the traffic')

    await page.locator('#status_code').fill('404')
    await Promise.all([page.waitForURL(/\/search\/results\?/), page.locator('form.search-form button[type=submit]').click()])
    t.match(page.url(), /\/_profiler\/[0-9a-f]{6}\/search\/results\?ip=&method=&status_code=404&url=&start=&end=&limit=10&type=request&deployment=$/)
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
    t.equal(await server.stop(), 0)
  })

  t.test('behind PROFILER_SECRET: the browser logs in, the CSP keeps the styles and stops injected markup', async t => {
    const secret = 'browser-test-secret-0123'
    const server = await startServer(t, { PROFILER_SECRET: secret })
    const { address } = server
    const xss = '<img src=x onerror="alert(1)"><script>alert(2)</script>'
    const attack = await fetch(`${address}/nope/${encodeURIComponent(xss)}`, { headers: { 'user-agent': xss, referer: `${address}/${xss}` } })
    const token = attack.headers.get('x-debug-token') ?? ''
    const authorization = `Basic ${Buffer.from(`operator:${secret}`).toString('base64')}`
    // Profiles are written in the background: wait until this one can be read.
    for (let i = 0; i < 200; i++) {
      if ((await fetch(`${address}/_profiler/${token}`, { headers: { accept: 'application/json', authorization } })).status === 200) break
      await new Promise(resolve => setTimeout(resolve, 25))
    }

    const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS })
    t.teardown(() => browser.close())
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
    t.equal(await server.stop(), 0)
  })
}
