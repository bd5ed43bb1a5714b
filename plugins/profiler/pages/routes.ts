import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyReply } from 'fastify'
import { html, wantsJson } from './render.js'
import { Type } from 'typebox'
import { PANEL_NAMES, panels } from '../panels/index.js'
import { panelData, type AppDatabase, type PageQuery } from '../panels/panel.js'
import { securePages } from './page-security.js'
import type { SecretLogin } from '../login-throttle.js'
import { DEFAULT_LIMIT, parseSearchFilters, SEARCH_PARAMETERS, SearchQuerySchema, type SearchQuery } from '../query/search-filters.js'
import { ListingResponseSchema, ProfileResponseSchema } from '../schemas.js'
import type { ProfileStore } from '../runtime/profile-store.js'
import { TOKEN_PATTERN } from '../token.js'
import { choosePanel, findStoredProfile, profileJson, tokenNotFound } from '../query/profile-lookup.js'
import { routeStanding } from '../query/route-standing.js'
import { panelMenu, panelOnPage, profileSummary, resultRow, searchForm } from './view-model.js'
import { curlText, harText } from '../export/export-text.js'
import { statsRoutes } from './stats-routes.js'
import { alertsRoutes } from './alerts-routes.js'
import type { AlertService } from '../alerts/alert-service.js'
import { keptJson, type SamplingOptions } from '../collect/sampling.js'
import { boundPageConcurrency, PAGE_CONCURRENCY } from './page-concurrency.js'

export interface ProfilerRoutesOptions {
  store: ProfileStore
  /** The HTTP Basic password of every page and the profiler's one login limiter; null: open pages. */
  login: SecretLogin | null
  /** How long the route statistics are kept (PROFILER_STATS_MAX_AGE): the statistics page says when a window is longer. */
  statsMaxAgeMs: number
  /** Which requests are kept as profiles: the pages say it. */
  sampling: SamplingOptions
  /** The service's advisors' database, which a panel's page may read on demand (the db panel's Explain); null: none. */
  appDatabase: AppDatabase | null
  /** The alert rules' evaluation (PROFILER_ALERTS); null: no rules file. */
  alerts: AlertService | null
}

const HOME_TARGET = `/_profiler/empty/search/results?limit=${DEFAULT_LIMIT}`
const TokenParams = Type.Object({ token: Type.String({ maxLength: 100 }) })
const PanelQuery = Type.Object({ panel: Type.Optional(Type.String({ maxLength: 100 })), type: Type.Optional(Type.String({ maxLength: 20 })) })

/** The same search query, as Symfony passes it on: given parameters only, empty ones kept, `type` always (default "request"). */
function passOn (query: SearchQuery): string {
  const params = new URLSearchParams()
  for (const name of SEARCH_PARAMETERS) {
    const value = name === 'type' ? query.type ?? 'request' : query[name]
    if (value !== undefined) params.append(name, value)
  }
  return params.toString()
}

/** A HAR document, offered as a file to save. */
function sendHar (reply: FastifyReply, name: string, document: string): FastifyReply {
  return reply
    .type('application/json; charset=utf-8')
    .header('content-disposition', `attachment; filename="${name}.har"`)
    .send(document)
}

/** /_profiler: the search listing and the profile pages, each with a JSON twin. Profiled only when they fail. */
export const profilerRoutes: FastifyPluginAsyncTypebox<ProfilerRoutesOptions> = async (app, { store, login, statsMaxAgeMs, sampling, appDatabase, alerts }) => {
  const kept = keptJson(sampling)
  const config = { profile: false }
  boundPageConcurrency(app, PAGE_CONCURRENCY)
  await securePages(app, login)

  // Every answer of these pages, errors included: not indexed, and never kept by a browser or a
  // shared cache (profiles hold request data; the back button must not show them after logout).
  app.addHook('onSend', (_request, reply, payload, done) => {
    reply.header('x-robots-tag', 'noindex')
    reply.header('cache-control', 'no-store')
    done(null, payload)
  })

  // Only "/_profiler/": "/_profiler" is left to the routing layer's 301, as in Symfony.
  app.get('/', { config, prefixTrailingSlash: 'slash' }, async (_request, reply) => reply.redirect(HOME_TARGET, 302))

  app.get('/search', { config, schema: { querystring: SearchQuerySchema } }, async (request, reply) => {
    const token = request.query.token?.trim() ?? ''
    if (token !== '') return reply.redirect(`/_profiler/${encodeURIComponent(token)}`, 302)
    const newest = (await store.search({ ...parseSearchFilters(request.query), limit: 1 }))[0]
    return reply.redirect(`/_profiler/${newest?.token ?? 'empty'}/search/results?${passOn(request.query)}`, 302)
  })

  app.get('/:token/search/results', {
    config,
    schema: {
      params: TokenParams,
      querystring: SearchQuerySchema,
      response: { 200: ListingResponseSchema }
    }
  }, async (request, reply) => {
    const { token } = request.params
    if (token !== 'empty' && !TOKEN_PATTERN.test(token)) throw tokenNotFound(token)
    const filters = parseSearchFilters(request.query)
    const results = await store.search(filters)
    const health = store.healthSnapshot()
    if (wantsJson(request)) return { results, store: health, kept }
    // The Deployment column only when several deployments share this store.
    const deployments = await store.deployments()
    return html(reply, 'profiler/results.hbs', {
      health,
      showDeployment: deployments.length > 1,
      title: 'Profile Search - Profiler',
      results: results.map(resultRow),
      count: results.length,
      // Listed slowest first: each profile's duration shows the order.
      byDuration: filters.sort === 'duration',
      harHref: `/_profiler/${token}/search/har?${passOn(request.query)}`,
      kept: kept.sentence,
      search: searchForm(request.query)
    })
  })

  app.get('/:token/search/har', { config, schema: { params: TokenParams, querystring: SearchQuerySchema } }, async (request, reply) => {
    const { token } = request.params
    if (token !== 'empty' && !TOKEN_PATTERN.test(token)) throw tokenNotFound(token)
    const filters = parseSearchFilters(request.query)
    return sendHar(reply, 'profiles', await store.searchHar(filters, app.config.version))
  })

  app.get('/:token/har', { config, schema: { params: TokenParams } }, async (request, reply) => {
    const profile = await findStoredProfile(store, request.params.token)
    return sendHar(reply, `profile-${profile.token}`, harText([profile], app.config.version))
  })

  app.get('/:token/curl', { config, schema: { params: TokenParams } }, async (request, reply) => {
    const profile = await findStoredProfile(store, request.params.token)
    return reply.type('text/plain; charset=utf-8').send(curlText(profile))
  })

  // Each panel's pages of its own (the db panel's Explain), with their JSON twins: registered here
  // like every other page, so the same authentication, rebinding guard and limits apply.
  for (const panel of panels) {
    for (const page of panel.pages ?? []) {
      app.get(`/:token/${panel.name}/${page.path}`, { config, schema: { params: TokenParams } }, async (request, reply) => {
        const profile = await findStoredProfile(store, request.params.token)
        const answer = await page.answer(panelData(profile, panel), { query: request.query as PageQuery, appDatabase })
        if (wantsJson(request)) return answer
        return html(reply, 'profiler/panel-page.hbs', {
          title: `${page.title}: ${profile.method} ${profile.url} (${profile.token}) - Profiler`,
          profile: profileSummary(profile),
          page: { title: page.title, panel: panel.name, panelLabel: panel.label, partial: `profiler/partials/panel-${panel.name}-${page.path}` },
          answer,
          search: searchForm({})
        })
      })
    }
  }

  await app.register(statsRoutes, { store, statsMaxAgeMs, kept, alerts })
  await app.register(alertsRoutes, { alerts })

  app.get('/:token', { config, schema: { params: TokenParams, querystring: PanelQuery, response: { 200: ProfileResponseSchema } } }, async (request, reply) => {
    const profile = await findStoredProfile(store, request.params.token)
    const requested = request.query.panel
    const panel = choosePanel(profile, requested, PANEL_NAMES)
    const traceUrl = app.config.profilerTraceUrl
    if (wantsJson(request)) return { ...profileJson(profile, panel, requested, traceUrl), kept }
    return html(reply, 'profiler/profile.hbs', {
      title: `${profile.method} ${profile.url} (${profile.token}) - Profiler`,
      profile: profileSummary(profile, traceUrl),
      standing: await routeStanding(store, profile),
      menu: panelMenu(profile, panel),
      // The panel's view may read more of the query than `panel` (the logs panel's `level`).
      panel: panelOnPage(profile, panel, { slowQueryMs: app.config.profilerSlowQueryMs, query: request.query as PageQuery }),
      pager: await store.neighbours(profile.token),
      kept: kept.sentence,
      search: searchForm({})
    })
  })
}
