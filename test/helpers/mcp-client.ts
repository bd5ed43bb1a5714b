import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { PassThrough } from 'node:stream'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import type { Test } from 'tap'
import { packageRoot } from '../../paths.js'
import { run } from '../../plugins/profiler/cli/cli.js'
import { CLI } from './profiler-cli.js'
import { collected, nodeArgs, spawnNode } from './run.js'
import { waitFor } from './wait-for.js'

/**
 * The same client talking to `run(['mcp'])` in-process, over a pair of byte streams: the SDK's stdio
 * framing without a node start. The server ends (exit code 0, nothing on stderr) once its input ends.
 */
export async function mcpClientInProcess (t: Test, env: Record<string, string>): Promise<Client> {
  const toServer = new PassThrough()
  const fromServer = new PassThrough()
  const stderr = collected()
  const exited = run(['mcp'], { env, stdin: toServer, stdout: fromServer, stderr: stderr.stream })
  const client = new Client({ name: 'profiler-test', version: '1.0.0' })
  // The framing (one JSON message a line) is the same both ways: the SDK's stdio transport, from the other end.
  await client.connect(new StdioServerTransport(fromServer, toServer))
  t.teardown(async () => {
    await client.close()
    toServer.end()
    const code = await exited
    if (code !== 0 || stderr.text() !== '') throw new Error(`the MCP server ended with ${code}: ${stderr.text()}`)
  })
  return client
}

/**
 * The built command line's `mcp` as a child process, the SDK's client on its stdin and stdout;
 * `end()` closes the client, ends the server's input and resolves with its exit code.
 */
export async function mcpBin (t: Test, env: Record<string, string>): Promise<{ client: Client, end: () => Promise<number | null> }> {
  const child = spawnNode(CLI, ['mcp'], env)
  const exited = new Promise<number | null>(resolve => child.once('exit', code => resolve(code)))
  t.teardown(() => { if (child.exitCode === null) child.kill('SIGKILL') })
  const client = new Client({ name: 'profiler-test', version: '1.0.0' })
  await client.connect(new StdioServerTransport(child.stdout, child.stdin))
  return {
    client,
    end: async () => {
      await client.close()
      child.stdin.end()
      return await exited
    }
  }
}

/** The SDK's own client (its stdio transport starts the process), talking to the built command line's `mcp`. */
export async function mcpClient (t: Test, env: Record<string, string>): Promise<Client> {
  const client = new Client({ name: 'profiler-test', version: '1.0.0' })
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [...nodeArgs, join(packageRoot, 'dist', CLI), 'mcp'],
    env: { PATH: process.env.PATH ?? '', ...env },
    stderr: 'pipe'
  })
  await client.connect(transport)
  t.teardown(async () => { await client.close() })
  return client
}

export interface ToolAnswer { text: string, isError: boolean }

/** A tool's answer: its text, and whether it is an error result. */
export async function call (client: Client, name: string, args: Record<string, unknown>): Promise<ToolAnswer> {
  const result = await client.callTool({ name, arguments: args }) as { content: Array<{ type: string, text: string }>, isError?: boolean }
  return { text: result.content.map(part => part.text).join(''), isError: result.isError === true }
}

/** A tool's JSON answer; an error result fails. */
export async function json (client: Client, name: string, args: Record<string, unknown>): Promise<any> {
  const answer = await call(client, name, args)
  if (answer.isError) throw new Error(`${name} failed: ${answer.text}`)
  return JSON.parse(answer.text)
}

/** One answer line of the server, as JSON. */
export interface RpcAnswer { jsonrpc: string, id: string | number | null, result?: any, error?: { code: number, message: string } }

export interface McpLines {
  /** Writes raw bytes to the server's stdin (a line is whatever ends with "\n"), waiting for the pipe to drain. */
  write: (bytes: string | Buffer) => Promise<void>
  /** The answers read since the last call, up to and including the one whose id is `id` (waits for it). */
  answersUntil: (id: string | number) => Promise<RpcAnswer[]>
  /** The server's peak resident memory so far, in bytes (VmHWM of its /proc status). */
  peakMemory: () => Promise<number>
  /** Ends the server's input; resolves with its exit code and what it wrote on stderr. */
  end: () => Promise<{ code: number | null, stderr: string }>
}

/**
 * The built command line's `mcp` as a child process spoken to in raw lines, as a client that is not
 * the SDK (or an attacker) would: after `initialize`, anything can be written, and every line the
 * server writes back is read as JSON.
 */
export async function mcpLines (t: Test, env: Record<string, string>): Promise<McpLines> {
  const child = spawnNode(CLI, ['mcp'], env)
  const exited = new Promise<number | null>(resolve => child.once('exit', code => resolve(code)))
  t.teardown(() => { if (child.exitCode === null) child.kill('SIGKILL') })
  const answers: RpcAnswer[] = []
  let partial = ''
  child.stdout.setEncoding('utf8')
  child.stdout.on('data', (text: string) => {
    const lines = (partial + text).split('\n')
    partial = lines.pop() ?? ''
    for (const line of lines) answers.push(JSON.parse(line))
  })
  const stderr = collected()
  child.stderr.pipe(stderr.stream)
  const write = async (bytes: string | Buffer): Promise<void> => {
    if (!child.stdin.write(bytes)) await new Promise(resolve => child.stdin.once('drain', resolve))
  }
  const answersUntil = async (id: string | number): Promise<RpcAnswer[]> => {
    await waitFor(() => answers.some(answer => answer.id === id) || child.exitCode !== null, { timeoutMs: 60_000, what: `the answer to ${JSON.stringify(id)}` })
    const at = answers.findIndex(answer => answer.id === id)
    if (at === -1) throw new Error(`the MCP server exited (${child.exitCode}) without answering ${JSON.stringify(id)}: ${stderr.text()}`)
    return answers.splice(0, at + 1)
  }
  await write(JSON.stringify({ jsonrpc: '2.0', id: 'init', method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw-lines', version: '1.0.0' } } }) + '\n')
  await answersUntil('init')
  await write(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) + '\n')
  return {
    write,
    answersUntil,
    peakMemory: async () => {
      const status = await readFile(`/proc/${child.pid}/status`, 'utf8')
      return Number(/^VmHWM:\s+(\d+) kB$/m.exec(status)?.[1]) * 1024
    },
    end: async () => {
      child.stdin.end()
      return { code: await exited, stderr: stderr.text() }
    }
  }
}
