#!/usr/bin/env node
// The profiler's command line: search, show, tail, stats, export, and an MCP server for coding agents.
// Reads the store the service's own variables name, read-only, while the service runs. The program
// is plugins/profiler/cli/cli.ts (the profiler's second door, for this file only: eslint.config.js);
// this runs it on the process's arguments, environment and streams.
import { run } from '../plugins/profiler/cli/cli.js'

process.exitCode = await run(process.argv.slice(2), {
  env: process.env,
  stdin: process.stdin,
  stdout: process.stdout,
  stderr: process.stderr,
  // Only `tail` asks: every other command keeps the default Ctrl-C.
  interrupted: () => {
    const stop = new AbortController()
    for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => { stop.abort() })
    return stop.signal
  }
})
