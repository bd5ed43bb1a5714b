// The profiler's command line as a function: the bin (scripts/profiler.ts) runs it on the process's
// arguments, environment and streams; tests run it in-process on their own (no node start per command).
// Exit codes: 0 success, 1 the store failed, 2 a usage error or an unknown token (one line on stderr).
import type { Readable, Writable } from 'node:stream'
import { Command, CommanderError, Option } from 'commander'
import { ConfigError, loadStoreConfig, type StoreConfig } from '../../../config.js'
import { HttpError } from '../../../lib/http-error.js'
import { DEFAULT_WINDOW, routeStatsJson, WINDOW_RULE } from '../query/stats-json.js'
import { openReadOnlyStore, StoreUnavailableError, type ReadOnlyStore } from '../engine/open-read-only.js'
import { exportProfile } from './export.js'
import { printable, profileText, resultsTable, statsText, terminalSafe } from './format.js'
import { searchFilters, searchProfiles } from './search.js'
import { filterOptions, OPTION_NAMES, type SearchOptions } from './search-options.js'
import { PANEL_NAMES } from '../panels/index.js'
import { showProfile } from './show.js'
import { tailProfiles } from './tail.js'
import { alertsAnswer, alertsText, rulesOf } from './alerts.js'
import { AlertRulesError } from '../../../lib/alerts/rules-file.js'

/** Where a run reads its settings and writes its output. */
export interface ProfilerIo {
  /** The variables the service reads (PROFILER_DATABASE_URL, PROFILER_DATABASE_PATH, ...). */
  env: Record<string, string | undefined>
  /** Colour only when this is a terminal that has colours. */
  stdout: Writable & { isTTY?: boolean, hasColors?: () => boolean }
  stderr: Writable
  /** The MCP server's input (`mcp` serves until it ends). */
  stdin?: Readable
  /** Ends `tail` (the bin aborts it on SIGINT and SIGTERM); without it, `tail` runs until the process ends. */
  interrupted?: () => AbortSignal
}

/** A usage error found after parsing (exit code 2). */
class UsageError extends Error {}

/** The settings the command line reads (where the store is), validated: not the server's others. */
function config (env: ProfilerIo['env']): StoreConfig {
  try {
    return loadStoreConfig(env)
  } catch (err) {
    if (err instanceof ConfigError) throw new UsageError(err.message)
    throw err
  }
}

/** The alert rules file (PROFILER_ALERTS), if named: a bad one is a usage error naming the rule and field. */
function alertRules (env: ProfilerIo['env']) {
  try {
    return rulesOf(env)
  } catch (err) {
    if (err instanceof AlertRulesError) throw new UsageError(`Invalid environment: ${err.message}`)
    throw err
  }
}

/** The store, opened once per command and closed at the end. */
async function withStore<T> (env: ProfilerIo['env'], use: (reader: ReadOnlyStore) => Promise<T>): Promise<T> {
  const reader = await openReadOnlyStore(config(env))
  try {
    return await use(reader)
  } finally {
    await reader.close()
  }
}

/** The search filters, as options of `search` (every one) and `tail` (search-options.ts). */
function withFilters (command: Command, name: 'search' | 'tail'): Command {
  for (const option of filterOptions(name)) command.addOption(option)
  return command.option('--json', 'JSON for machines')
}

function buildProgram ({ env, stdout, stderr, stdin, interrupted }: ProfilerIo): Command {
  const colour = stdout.isTTY === true && stdout.hasColors?.() === true
  const write = (text: string): void => { stdout.write(terminalSafe(text)) }
  const program = new Command('profiler')
    .description('Search and inspect the request profiles the service records (read-only).\n' +
      'Reads the store the service\'s variables name, like the service: PostgreSQL when PROFILER_DATABASE_URL is set,\n' +
      'else the SQLite file PROFILER_DATABASE_PATH (default var/profiler.sqlite).')
    .exitOverride()
    .configureOutput({
      writeOut: text => { stdout.write(terminalSafe(text)) },
      writeErr: text => { stderr.write(terminalSafe(text)) },
      outputError: (text, write) => { write(text.replace(/^error: /, 'profiler: ').replace(/\n(?=.)/g, ' ')) }
    })
    .showSuggestionAfterError()

  withFilters(program.command('search'), 'search')
    .description('List recorded requests, newest first or slowest first (the /_profiler search)')
    .action(async (options: SearchOptions & { json?: boolean }) => {
      const results = await withStore(env, reader => searchProfiles(reader, options, OPTION_NAMES))
      write(options.json === true ? `${JSON.stringify({ results })}\n` : resultsTable(results, colour))
    })

  program.command('show')
    .description('One profile: its summary and a panel ("latest": the newest profile)')
    .argument('<token>', 'a token, or latest')
    .addOption(new Option('--panel <name>', 'the panel to show (default: exception when there was one, else request)').choices(PANEL_NAMES))
    .option('--json', 'JSON for machines (the page\'s JSON: every panel, or the one asked for)')
    .action(async (token: string, options: { panel?: string, json?: boolean }) => {
      const { profile, panel, json } = await withStore(env, reader => showProfile(reader, token, options.panel, config(env).profilerTraceUrl))
      write(options.json === true ? `${JSON.stringify(json)}\n` : profileText(profile, panel, colour))
    })

  withFilters(program.command('tail'), 'tail')
    .description('Print the newest profiles, then each new one as it is stored, until interrupted (Ctrl-C)')
    .option('--interval <ms>', 'how often to look for new profiles', '1000')
    .action(async (options: SearchOptions & { json?: boolean, interval: string }) => {
      const intervalMs = Number(options.interval)
      if (!Number.isInteger(intervalMs) || intervalMs < 50 || intervalMs > 60_000) {
        throw new UsageError(`Invalid "--interval" parameter "${options.interval}": expected milliseconds from 50 to 60000`)
      }
      const filters = searchFilters(options, OPTION_NAMES)
      const signal = interrupted?.() ?? new AbortController().signal
      let header = options.json !== true
      await withStore(env, reader => tailProfiles(reader, {
        filters,
        intervalMs,
        signal,
        print: profiles => {
          if (options.json === true) {
            write(profiles.map(profile => `${JSON.stringify(profile)}\n`).join(''))
            return
          }
          // The column titles once; widths follow each batch.
          const table = resultsTable(profiles, colour)
          write(header ? table : table.slice(table.indexOf('\n') + 1))
          header = false
        }
      }))
    })

  program.command('stats')
    .description('Route statistics: per route and method (unmatched requests per status), slowest p95 first (the /_profiler/stats page)')
    .option('--window <window>', `${WINDOW_RULE} (default ${DEFAULT_WINDOW})`)
    .option('--deployment <name>', 'requests recorded by this deployment, exact (PROFILER_DEPLOYMENT of the instance); default: all')
    .option('--compare <name>', 'with --deployment: that deployment (A) against this one (B), side by side per route')
    .option('--json', 'JSON for machines (the page\'s JSON)')
    .action(async (options: { window?: string, deployment?: string, compare?: string, json?: boolean }) => {
      const stats = await withStore(env, reader => routeStatsJson(reader, options, config(env).profilerStatsMaxAgeMs, '--window'))
      write(options.json === true ? `${JSON.stringify(stats)}\n` : statsText(stats, colour))
    })

  program.command('alerts')
    .description('Alert rules with their state per route, and the newest state changes and deliveries (the /_profiler/alerts page); the rules from PROFILER_ALERTS')
    .option('--json', 'JSON for machines (the page\'s JSON)')
    .action(async (options: { json?: boolean }) => {
      const answer = await alertsAnswer(config(env), alertRules(env))
      write(options.json === true ? `${JSON.stringify(answer)}\n` : alertsText(answer))
    })

  program.command('export')
    .description('One profile as a curl command that repeats the request, or as a HAR file (what /_profiler/<token>/curl and /har answer)')
    .argument('<token>', 'a token, or latest')
    .addOption(new Option('--curl', 'the curl command line').conflicts('har'))
    .addOption(new Option('--har', 'a HAR 1.2 document (JSON)'))
    .action(async (token: string, options: { curl?: boolean, har?: boolean }) => {
      if (options.curl !== true && options.har !== true) throw new UsageError('export needs --curl or --har')
      const { version } = config(env)
      write(await withStore(env, reader => exportProfile(reader, token, options.curl === true ? 'curl' : 'har', version)))
    })

  program.command('mcp')
    .description('Serve the Model Context Protocol on stdio for coding agents (tools: search_profiles, get_profile, compare_profiles, route_stats, list_alerts, export_profile)')
    .action(async () => {
      const settings = config(env)
      // Opened at the first call and kept: a store that is missing now may exist by then (a failed open is tried again).
      const store: { opening: Promise<ReadOnlyStore> | null } = { opening: null }
      const open = async (): Promise<ReadOnlyStore> => {
        store.opening ??= openReadOnlyStore(settings).catch((err: unknown) => {
          store.opening = null
          throw err
        })
        return await store.opening
      }
      try {
        // Loaded here: the SDK and zod are only needed by this command.
        const { serveMcp } = await import('./mcp.js')
        const rules = alertRules(env)
        await serveMcp(open, settings, stdin ?? process.stdin, stdout, async () => await alertsAnswer(settings, rules))
      } finally {
        await (await store.opening?.catch(() => null))?.close()
      }
    })

  return program
}

/** Exit code and one line for what went wrong. */
function failure (err: unknown): { code: number, message: string | null } {
  if (err instanceof CommanderError) {
    // Commander has already printed its line (or the help).
    const ok = err.code === 'commander.helpDisplayed' || err.code === 'commander.version'
    return { code: ok ? 0 : 2, message: null }
  }
  if (err instanceof UsageError) return { code: 2, message: err.message }
  // The page's 400s (bad filters) and 404s (unknown token or panel).
  if (err instanceof HttpError && err.statusCode < 500) return { code: 2, message: err.message }
  if (err instanceof StoreUnavailableError) return { code: 1, message: err.message }
  return { code: 1, message: String((err as Error).message ?? err) }
}

/**
 * Runs one command line (`argv` without node and the script: `['search', '--json']`) to its end;
 * resolves with the exit code. Never exits the process.
 */
export async function run (argv: string[], io: ProfilerIo): Promise<number> {
  try {
    await buildProgram(io).parseAsync(argv, { from: 'user' })
    return 0
  } catch (err) {
    const { code, message } = failure(err)
    // One line, whatever the message quotes (a token or filter as typed, a stored value).
    if (message !== null) io.stderr.write(`profiler: ${printable(message)}\n`)
    return code
  }
}
