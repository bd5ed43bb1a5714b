// Node's flags that load code into every new thread before its own: `--import x`, `--require x`
// (`-r x`), `--loader x`, `--experimental-loader x`, each also as `--flag=x`.
const PRELOADS = new Set(['--import', '--require', '-r', '--loader', '--experimental-loader'])

function flagOf (arg: string): string {
  const equals = arg.indexOf('=')
  return (equals === -1 ? arg : arg.slice(0, equals)).replaceAll('"', '')
}

/** Node arguments without the preload flags and their values; every other argument kept in order. */
export function withoutPreloads (args: readonly string[]): string[] {
  const kept: string[] = []
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string
    if (!PRELOADS.has(flagOf(arg))) kept.push(arg)
    else if (!arg.includes('=')) i++ // the value is the next argument
  }
  return kept
}

/**
 * A NODE_OPTIONS value without the preload flags. Its words are split as Node splits them:
 * on spaces outside double quotes (quotes kept as written, so the rest reads as before).
 */
export function nodeOptionsWithoutPreloads (value: string): string {
  const words = value.match(/(?:"(?:\\.|[^"\\])*"|[^\s"])+/g) ?? []
  return withoutPreloads(words).join(' ')
}
