import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { templatesDir } from '../paths.js'

/** CSP hashes of the layout's inline <style> blocks: the only inline content the pages carry. */
function layoutStyleHashes (): string[] {
  const layout = readFileSync(join(templatesDir, 'layout.hbs'), 'utf8')
  return [...layout.matchAll(/<style>([\s\S]*?)<\/style>/g)]
    .map(([, css = '']) => `'sha256-${createHash('sha256').update(css).digest('base64')}'`)
}

/**
 * The Content-Security-Policy of every page drawn with the layout (the profiler's pages and the
 * HTML error page): no script at all, the layout's styles only, no framing.
 */
export const PAGE_CSP_DIRECTIVES = {
  defaultSrc: ["'none'"],
  styleSrc: layoutStyleHashes(),
  imgSrc: ["'self'", 'data:'],
  formAction: ["'self'"],
  frameAncestors: ["'none'"],
  baseUri: ["'none'"]
}

/** The same policy as a header value (for the error page, answered outside the profiler's helmet). */
export const PAGE_CSP_HEADER = Object.entries(PAGE_CSP_DIRECTIVES)
  .map(([name, values]) => `${name.replace(/[A-Z]/g, letter => `-${letter.toLowerCase()}`)} ${values.join(' ')}`)
  .join(';')
