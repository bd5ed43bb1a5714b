import { STATUS_CODES } from 'node:http'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import { HttpError } from '../../../lib/http-error.js'
import type { Collector } from '../collect/collectors/collector.js'
import { securePages } from './page-security.js'
import type { StoredProfile } from '../profile.js'
import { parseSearchFilters, SEARCH_PARAMETERS, SearchQuerySchema, type SearchQuery } from './search-filters.js'
import type { ProfileStore } from '../store/profile-store.js'
import { TOKEN_PATTERN } from '../collect/token.js'
import { panelMenu, profileSummary, resultRow, searchForm } from './view-model.js'

export interface ProfilerRoutesOptions {
  store: ProfileStore
  collectors: Collector[]
  /** The HTTP Basic password of every page; null: open pages. */
  secret: string | null
}

const HOME_TARGET = '/_profiler/empty/search/results?limit=10'
const TokenParams = Type.Object({ token: Type.String({ maxLength: 100 }) })
const PanelQuery = Type.Object({ panel: Type.Optional(Type.String({ maxLength: 100 })), type: Type.Optional(Type.String({ maxLength: 20 })) })
const PAGE = { noindex: true, heading: 'Profiler', homeHref: '/_profiler/' }

/** Pages answer HTML unless the client asks for JSON. */
function wantsJson (request: FastifyRequest): boolean {
  return request.accepts().type(['text/html', 'application/json']) === 'application/json'
}

function tokenNotFound (token: string): HttpError {
  return new HttpError(404, `Token "${token}" not found.`, { name: 'NotFoundHttpError' })
}

/** The same search query, as Symfony passes it on: given parameters only, empty ones kept. */
function passOn (query: SearchQuery): string {
  const params = new URLSearchParams()
  for (const name of SEARCH_PARAMETERS) {
    const value = query[name]
    if (value !== undefined) params.append(name, value)
  }
  return params.toString()
}

async function html (reply: FastifyReply, page: string, model: Record<string, unknown>): Promise<FastifyReply> {
  const body = await reply.viewAsync(page, { ...PAGE, ...model })
  return reply.type('text/html; charset=utf-8').send(body)
}

/** /_profiler: the search listing and the profile pages, each with a JSON twin. Profiled only when they fail. */
export const profilerRoutes: FastifyPluginAsyncTypebox<ProfilerRoutesOptions> = async (app, { store, collectors, secret }) => {
  const config = { profile: false }
  await securePages(app, secret)
  const panelNames = collectors.map(collector => collector.name)

  app.addHook('onSend', (_request, reply, payload, done) => {
    reply.header('x-robots-tag', 'noindex')
    done(null, payload)
  })

  // Only "/_profiler/": "/_profiler" is left to the routing layer's 301, as in Symfony.
  app.get('/', { config, prefixTrailingSlash: 'slash' }, async (_request, reply) => reply.redirect(HOME_TARGET, 302))

  app.get('/search', { config, schema: { querystring: SearchQuerySchema } }, async (request, reply) => {
    const token = request.query.token?.trim() ?? ''
    if (token !== '') return reply.redirect(`/_profiler/${encodeURIComponent(token)}`, 302)
    const newest = (await store.search({ ...parseSearchFilters(request.query), limit: 1 }))[0]
    const query = passOn(request.query)
    return reply.redirect(`/_profiler/${newest?.token ?? 'empty'}/search/results${query === '' ? '' : `?${query}`}`, 302)
  })

  app.get('/:token/search/results', {
    config,
    schema: {
      params: TokenParams,
      querystring: SearchQuerySchema,
      response: {
        200: Type.Object({
          results: Type.Array(Type.Object({
            token: Type.String(),
            ip: Type.String(),
            method: Type.String(),
            url: Type.String(),
            status: Type.Integer(),
            time: Type.String(),
            durationMs: Type.Number(),
            deployment: Type.String()
          })),
          store: Type.Object({
            state: Type.Union([Type.Literal('ok'), Type.Literal('failing')]),
            since: Type.Union([Type.String(), Type.Null()]),
            reason: Type.Union([Type.String(), Type.Null()]),
            dropped: Type.Integer(),
            queued: Type.Integer()
          })
        })
      }
    }
  }, async (request, reply) => {
    const { token } = request.params
    if (token !== 'empty' && !TOKEN_PATTERN.test(token)) throw tokenNotFound(token)
    const results = await store.search(parseSearchFilters(request.query))
    const health = store.healthSnapshot()
    if (wantsJson(request)) return { results, store: health }
    // The Deployment column only when several deployments share this store.
    const deployments = await store.deployments()
    return html(reply, 'profiler/results.hbs', {
      health,
      showDeployment: deployments.length > 1,
      title: 'Profile Search - Profiler',
      results: results.map(resultRow),
      count: results.length,
      search: searchForm(request.query)
    })
  })

  app.get('/:token', { config, schema: { params: TokenParams, querystring: PanelQuery } }, async (request, reply) => {
    const { token } = request.params
    let profile: StoredProfile | undefined
    if (token === 'latest') profile = await store.latest()
    else if (TOKEN_PATTERN.test(token)) profile = await store.find(token)
    if (profile === undefined) throw tokenNotFound(token)

    const requested = request.query.panel
    const panel = requested ?? (profile.panels.exception === null || profile.panels.exception === undefined ? 'request' : 'exception')
    if (!panelNames.includes(panel) || !(panel in profile.panels)) {
      throw new HttpError(404, `Panel "${panel}" is not available for token "${profile.token}".`, { name: 'NotFoundHttpError' })
    }
    if (wantsJson(request)) {
      const { panels, ...fields } = profile
      return { ...fields, statusText: STATUS_CODES[profile.status] ?? '', panel, panels: requested === undefined ? panels : { [panel]: panels[panel] } }
    }
    const collector = collectors.find(candidate => candidate.name === panel)
    return html(reply, 'profiler/profile.hbs', {
      title: `${profile.method} ${profile.url} (${profile.token}) - Profiler`,
      profile: profileSummary(profile),
      menu: panelMenu(profile, collectors, panel),
      panel: { name: panel, label: collector?.label ?? panel, partial: `profiler/partials/panel-${panel}`, data: profile.panels[panel] },
      search: searchForm({})
    })
  })
}
