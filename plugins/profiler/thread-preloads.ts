// Worker options that keep the process's preloads (`--import`, `--require`, `--loader`, from the
// command line or NODE_OPTIONS) out of a worker thread of ours. A worker inherits them by default:
// an application's OpenTelemetry or Sentry preload (issue 39) would load its whole SDK again in
// each of the profiler's threads (seconds at start: past Fastify's 10 s plugin timeout on a busy
// machine, with the auto-instrumentations' ~200 modules) and trace the profiler's own store calls
// as if they were the application's.
import type { WorkerOptions } from 'node:worker_threads'

const PRELOAD = /^(?:--import|--require|-r|--loader|--experimental-loader)(?:=|$)/

/** The options without the preloads and their values (`--import=x`, or `--import x`). */
export function withoutPreloads (options: readonly string[]): string[] {
  const kept: string[] = []
  for (let i = 0; i < options.length; i++) {
    const option = options[i] ?? ''
    if (!PRELOAD.test(option)) kept.push(option)
    else if (!option.includes('=')) i++
  }
  return kept
}

/** NODE_OPTIONS's words as Node reads them: split on spaces outside double quotes, each kept as written. */
function nodeOptionsWords (value: string): string[] {
  return value.match(/(?:"(?:\\.|[^"\\])*"|[^\s"])+/g) ?? []
}

/**
 * execArgv and env for a worker thread that runs none of the process's preloads. A Worker given
 * execArgv refuses V8 and per-process options (--max-old-space-size stops it), so of the command
 * line it keeps source maps only (the heap is the thread's resourceLimits); NODE_OPTIONS, which a
 * thread reads again, keeps everything but the preloads.
 */
export function threadWithoutPreloads (): Pick<WorkerOptions, 'execArgv' | 'env'> {
  const env = { ...process.env }
  if (env.NODE_OPTIONS !== undefined) env.NODE_OPTIONS = withoutPreloads(nodeOptionsWords(env.NODE_OPTIONS)).join(' ')
  return { execArgv: process.execArgv.filter(option => option === '--enable-source-maps'), env }
}
