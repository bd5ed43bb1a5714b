import view from '@fastify/view'
import fp from 'fastify-plugin'
import handlebars from 'handlebars'
import { templatesDir } from '../paths.js'

/** A handlebars instance of our own (helpers stay local to this app) behind @fastify/view. */
export default fp(async function viewsPlugin (app) {
  const engine = handlebars.create()
  engine.registerHelper('eq', (a: unknown, b: unknown) => a === b)
  await app.register(view, {
    engine: { handlebars: engine },
    root: templatesDir,
    layout: 'layout.hbs',
    production: app.config.production,
    defaultContext: { appName: 'Profiled API', homeHref: '/' }
  })
}, { name: 'views' })
