import { readdirSync } from 'node:fs'
import { join, relative } from 'node:path'
import view from '@fastify/view'
import fp from 'fastify-plugin'
import handlebars from 'handlebars'
import { templatesDir } from '../paths.js'

/** Every `*.hbs` below a `partials/` folder, named by its path: `profiler/partials/panel-request`. */
function findPartials (dir: string): Record<string, string> {
  const partials: Record<string, string> = {}
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    const folder = entry.parentPath
    if (!entry.isFile() || !entry.name.endsWith('.hbs') || !folder.split(/[/\\]/).includes('partials')) continue
    const path = relative(dir, join(folder, entry.name))
    partials[path.replace(/\\/g, '/').replace(/\.hbs$/, '')] = path
  }
  return partials
}

/** A handlebars instance of our own (helpers stay local to this app) behind @fastify/view. */
export default fp(async function viewsPlugin (app) {
  const engine = handlebars.create()
  engine.registerHelper('eq', (a: unknown, b: unknown) => a === b)
  // Pretty JSON for <pre> blocks; the template's {{ }} escapes it.
  engine.registerHelper('json', (value: unknown) => JSON.stringify(value, null, 2))
  await app.register(view, {
    engine: { handlebars: engine },
    root: templatesDir,
    layout: 'layout.hbs',
    // Compiled templates are cached in every environment: the profiler pages are used mostly in
    // development, and recompiling each page costs milliseconds per request.
    production: true,
    options: { partials: findPartials(templatesDir) },
    // The service has no page at `/`: the header leads to what describes it (the reference page, or
    // the contract itself where the reference is off, as in production).
    defaultContext: { appName: 'Profiled API', homeHref: app.config.apiReference ? '/docs/' : '/openapi.json' }
  })
}, { name: 'views' })
