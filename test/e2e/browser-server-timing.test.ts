// The Server-Timing header of a profiled response, as a real browser reads it (headless Chromium
// driven by playwright-core, against dist/server.js): the database's statements and the app's time.
import { existsSync } from 'node:fs'
import { chromium } from 'playwright-core'
import t from 'tap'
import { UNCOVERED, startServer } from '../helpers/server.js'

const CHROMIUM = '/usr/bin/chromium'
const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync']

interface ServerTiming { name: string, duration: number, description: string }

if (!existsSync(CHROMIUM) && process.env.CI === undefined) {
  t.plan(0, `${CHROMIUM} is not installed (apt-get install -y chromium); .ci/run installs it`)
} else {
  t.test('a form posted to the status poll: the navigation\'s serverTiming holds db (3 queries) and app', async t => {
    const server = await startServer(t, {}, [], UNCOVERED)
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS })
    t.teardown(async () => { await browser.close() })
    const page = await browser.newPage()
    // A page of the same origin, then a real form navigation (the body transformer takes forms):
    // the poll checks the database, finds the advisor and records that it was seen.
    await page.goto(`${server.address}/robots.txt`)
    await Promise.all([
      page.waitForURL(`${server.address}/monitor/MonitorPooling`),
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
    t.equal(await server.stop(), 0)
  })
}
