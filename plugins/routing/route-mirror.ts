import FindMyWay, { type HTTPMethod } from 'find-my-way'

/**
 * The router options of the app and of its mirror: one object, so that both match the same paths
 * (a mirror with find-my-way's default maxParamLength of 100 answered 404 where the app's router
 * would have matched, instead of 405). Route parameters are bounded by their schemas; the
 * router's own limit would answer before any hook, unprofiled.
 */
export const ROUTER_OPTIONS = { maxParamLength: 16_384 } as const

interface MirroredRoute { order: number }

/**
 * A copy of the application's route table, kept only to explain a miss:
 * which methods a path allows (in declaration order) and whether a twin path exists.
 * Fastify's own router answers only "matched or not" for one method.
 */
export class RouteMirror {
  private readonly router = FindMyWay(ROUTER_OPTIONS)
  private readonly methods: string[] = []
  private declared = 0

  /** Records one route declaration; HEAD is left out, since a HEAD request matches like GET. */
  add (methods: string[], url: string): void {
    const declaration = this.declared++
    methods.forEach((method, position) => {
      if (method === 'HEAD') return
      try {
        this.router.on(method as HTTPMethod, url, () => {}, { order: declaration * 1000 + position })
      } catch {
        return // the same method and path declared twice: Fastify itself rejects that
      }
      if (!this.methods.includes(method)) this.methods.push(method)
    })
  }

  /** The methods some route accepts on this path, in first-declared order. */
  allowedMethods (path: string): string[] {
    const found: Array<{ method: string, order: number }> = []
    for (const method of this.methods) {
      const match = this.router.find(method as HTTPMethod, path)
      if (match !== null) found.push({ method, order: (match.store as MirroredRoute).order })
    }
    return found.sort((a, b) => a.order - b.order).map(entry => entry.method)
  }

  matches (method: string, path: string): boolean {
    return this.router.find(method as HTTPMethod, path) !== null
  }
}
