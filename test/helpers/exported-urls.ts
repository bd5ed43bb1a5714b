import type { FastifyInstance } from 'fastify'
import { listProfiles, profileJson } from './profiler.js'

/** Every URL a profile gives out: stored (its JSON), in the listing JSON, the cURL command's, the HAR entry's. */
export interface ProfileUrls { stored: string, listed: string | undefined, curl: string | undefined, har: string | undefined }

/** The URL curl is handed: the first word of the command, single-quoted with `'\''` for a quote (panels/request/curl.ts). */
function curlUrl (command: string): string | undefined {
  const quoted = /^curl '((?:[^']|'\\'')*)'/.exec(command)?.[1]
  return quoted?.replaceAll("'\\''", "'")
}

/** The profile's URLs as the pages answer them (read with the pages' own Host, localhost). */
export async function profileUrls (app: FastifyInstance, token: string): Promise<ProfileUrls> {
  const stored = (await profileJson(app, token)).url as string
  const listed = (await listProfiles(app)).find(profile => profile.token === token)?.url
  const curl = curlUrl((await app.inject({ url: `/_profiler/${token}/curl` })).body)
  const harAnswer = await app.inject({ url: `/_profiler/${token}/har` })
  const har = harAnswer.statusCode === 200 ? (harAnswer.json().log?.entries?.[0]?.request?.url as string | undefined) : undefined
  return { stored, listed, curl, har }
}

/**
 * Whether `url` is `origin` (scheme://host[:port]) followed by a path: its text starts with the
 * origin and a "/", and a URL parser finds that origin in it (nothing after it names another host).
 */
export function onOrigin (url: string | undefined, origin: string): boolean {
  if (url === undefined || !url.startsWith(`${origin}/`)) return false
  try {
    return new URL(url).origin === new URL(origin).origin
  } catch {
    return false
  }
}
