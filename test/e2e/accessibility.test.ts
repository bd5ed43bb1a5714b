// axe-core, in Debian's headless Chromium, on every profiler page and the HTML error page, in the
// light and the dark theme: no violation of any rule axe runs by default (WCAG 2.x A/AA and best
// practices). The pages' CSP forbids injected scripts, so the test's context bypasses it for axe only.
import { existsSync } from 'node:fs'
import axe from 'axe-core'
import { chromium, type Page } from 'playwright-core'
import t from 'tap'
import { PANEL_NAMES } from '../../plugins/profiler/panels/index.js'
import { UNCOVERED, startServer } from '../helpers/server.js'
import { waitFor } from '../helpers/wait-for.js'

const CHROMIUM = '/usr/bin/chromium'
const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync']
/** axe-core's whole script, evaluated in each page. */
const AXE_SOURCE = axe.source

interface AxeViolation { id: string, impact: string | null, nodes: Array<{ target: string[], failureSummary?: string }> }

/**
 * axe's violations on the page (axe's script evaluated in it), one line each (rule, impact, the
 * first elements); with `only`, one rule on the elements that match a selector.
 */
async function violations (page: Page, only?: { rule: string, selector: string }): Promise<string[]> {
  const found = await page.evaluate(async only => {
    const axe = (globalThis as unknown as { axe: { run: (context?: unknown, options?: unknown) => Promise<{ violations: AxeViolation[] }> } }).axe
    return (only === undefined ? await axe.run() : await axe.run({ include: [only.selector] }, { runOnly: [only.rule] })).violations
  }, only)
  return found.map(v => `${v.id} (${v.impact ?? '?'}): ${v.nodes.slice(0, 3).map(node => `${node.target.join(' ')} ${node.failureSummary ?? ''}`).join(' | ')}`)
}

// The file's own time limit: about 40 axe runs in two themes took 100-117 s in CI beside the suite's
// other servers and a CPU hog (120 s is .taprc's limit; one CI run was cut off there).
t.setTimeout(300_000)

if (!existsSync(CHROMIUM) && process.env.CI === undefined) {
  t.plan(0, `${CHROMIUM} is not installed (apt-get install -y chromium); .ci/run installs it`)
} else {
  // One Chromium for the file, launched while the first server starts (a launch costs seconds):
  // each test has its own contexts and pages.
  const launched = chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS })
  t.teardown(async () => { await (await launched).close() })

  // One server for the file's tests, started while Chromium launches. Every statement past the slow
  // threshold: the db panel's "slow" mark is on the page every run, not only when the machine made a
  // statement slow.
  const started = startServer(t, { PROFILER_SLOW_QUERY: '0ms' }, [], UNCOVERED)

  t.test('every profiler page and the error page: no axe violation, light and dark', async t => {
    const { address } = await started
    const json = { 'content-type': 'application/json' }
    // A body long and wide enough that its block scrolls both ways.
    const long = { code: 'ADV1001', notes: Array.from({ length: 120 }, (_, i) => `${'note '.repeat(40)}${i}`) }
    const lookup = await fetch(`${address}/ccenter/getConseillerByCode`, { method: 'POST', headers: { ...json, authorization: 'Bearer abc' }, body: JSON.stringify(long) })
    const notFound = await fetch(`${address}/robots.txt`, { headers: { referer: `${address}/home` } })
    const badBody = await fetch(`${address}/ccenter/getConseillerByCode`, { method: 'POST', headers: json, body: '{"code":' })
    const tokens = [lookup, notFound, badBody].map(res => res.headers.get('x-debug-token') ?? '')
    await waitFor(async () => {
      const listing = await fetch(`${address}/_profiler/empty/search/results?limit=100`, { headers: { accept: 'application/json' } })
      const listed = (await listing.json() as { results: Array<{ token: string }> }).results.map(row => row.token)
      return tokens.every(token => listed.includes(token))
    }, { what: 'the three profiles to be listed' })

    const pages = [
      '/_profiler/empty/search/results?limit=10',
      '/_profiler/empty/search/results?url=nothing-matches',
      '/_profiler/stats',
      // Every panel of the lookup (each has content there); the other two profiles where their
      // content differs (the error, the route not found, the body not parsed): two axe runs a page.
      ...PANEL_NAMES.map(panel => `/_profiler/${tokens[0] ?? ''}?panel=${panel}`),
      ...tokens.slice(1).flatMap(token => ['request', 'exception', 'router'].map(panel => `/_profiler/${token}?panel=${panel}`)),
      // A panel's own page: the db panel's Explain of the lookup's SELECT.
      `/_profiler/${tokens[0] ?? ''}/db/explain?statement=1`,
      '/no/such/page'
    ]
    const browser = await launched
    // Each page loaded and axe's script evaluated once, then checked in the light theme and, the
    // colour scheme switched on the same page, in the dark one: the themes are CSS alone (the
    // layout's prefers-color-scheme block, no script), so the dark run sees what a dark browser
    // loading the page sees. The pages in two halves side by side, each in its own context: an axe
    // run is mostly the renderer's work, and each context's pages have a renderer of their own.
    const halves = [pages.filter((_, i) => i % 2 === 0), pages.filter((_, i) => i % 2 === 1)]
    await Promise.all(halves.map(async half => {
      const context = await browser.newContext({ bypassCSP: true })
      const page = await context.newPage()
      for (const path of half) {
        await page.emulateMedia({ colorScheme: 'light' })
        const answer = await page.goto(`${address}${path}`)
        t.ok(answer !== null && (answer.status() === 200 || path === '/no/such/page'), `${path} loads`)
        await page.evaluate(AXE_SOURCE)
        for (const scheme of ['light', 'dark'] as const) {
          await page.emulateMedia({ colorScheme: scheme })
          t.equal(await page.evaluate('matchMedia("(prefers-color-scheme: dark)").matches'), scheme === 'dark', `${scheme}: ${path}: the page is in the ${scheme} theme`)
          t.same(await violations(page), [], `${scheme}: ${path}`)
          // docs/profiler.md's promise for an empty panel's menu link: above 7:1 (axe's AAA contrast rule).
          if (await page.locator('.menu a.empty').count() > 0) {
            t.same(await violations(page, { rule: 'color-contrast-enhanced', selector: '.menu a.empty' }), [], `${scheme}: ${path}: an empty panel's link above 7:1`)
          }
        }
      }
      await context.close()
    }))
  })

  t.test('the error page leads somewhere: its home link is not a 404', async t => {
    const server = await started
    const browser = await launched
    const page = await browser.newPage()
    await page.goto(`${server.address}/no/such/page`)
    const links = await page.locator('a[href]').evaluateAll(anchors => anchors.map(anchor => (anchor as unknown as { href: string }).href))
    t.ok(links.length > 0, `links: ${links.join(', ')}`)
    for (const link of links) {
      const res = await fetch(link, { redirect: 'follow' })
      t.not(res.status, 404, `${link} answers ${res.status}`)
    }
  })

  t.test('the server stops cleanly after every page was checked', async t => {
    t.equal(await (await started).stop(), 0)
  })
}
