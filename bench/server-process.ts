import { spawn, type ChildProcess } from 'node:child_process'
import { closeSync, openSync, readFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { join } from 'node:path'
import { packageRoot } from '../paths.js'
import { START_NODE_OPTIONS } from '../test/helpers/start-options.js'

export interface BenchServer { url: string, pid: number, rssBytes: () => number, stop: () => Promise<void> }

async function freePort (): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer()
    probe.unref()
    probe.on('error', reject)
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address()
      probe.close(() => resolve(typeof address === 'object' && address !== null ? address.port : 0))
    })
  })
}

async function waitUntilServing (url: string, child: ChildProcess): Promise<void> {
  for (let i = 0; i < 300; i++) {
    if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode}`)
    try {
      await fetch(`${url}/monitor/MonitorPooling`, { method: 'POST' })
      return
    } catch {
      await new Promise(resolve => setTimeout(resolve, 50))
    }
  }
  throw new Error('the server did not start within 15 s')
}

export interface BenchServerOptions {
  /** Where the server's standard output (its log) goes; discarded otherwise. */
  logFile?: string
  /** Node options placed before the script, such as --cpu-prof. */
  nodeArgs?: string[]
  /** Another build's checkout (revision-build.ts): its dist/server.js, run from that folder. This build's by default. */
  root?: string
}

/**
 * Starts dist/server.js (the build under test, or the one in `options.root`) on a free loopback port,
 * quiet unless LOG_LEVEL says otherwise, with `npm start`'s node options (the heap bound): measured as it is run.
 */
export async function startBenchServer (env: Record<string, string>, options: BenchServerOptions = {}): Promise<BenchServer> {
  const port = await freePort()
  const log = options.logFile === undefined ? 'ignore' : openSync(options.logFile, 'a')
  const root = options.root ?? packageRoot
  const child = spawn(process.execPath, [...START_NODE_OPTIONS, ...(options.nodeArgs ?? []), join(root, 'dist', 'server.js')], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', NODE_ENV: 'development', LOG_LEVEL: 'warn', PORT: String(port), ...env },
    stdio: ['ignore', log, 'inherit']
  })
  if (typeof log === 'number') closeSync(log) // the child has its own copy
  const url = `http://127.0.0.1:${port}`
  await waitUntilServing(url, child)
  return {
    url,
    pid: child.pid ?? 0,
    rssBytes: () => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid ?? 0}/status`, 'utf8'))?.[1] ?? 0) * 1024,
    stop: async () => {
      if (child.exitCode !== null) return
      const exited = new Promise(resolve => child.once('exit', resolve))
      child.kill('SIGTERM')
      await exited
    }
  }
}
