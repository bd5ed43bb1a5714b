import { join } from 'node:path'
import { PassThrough } from 'node:stream'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import type { Test } from 'tap'
import { packageRoot } from '../../paths.js'
import { run } from '../../scripts/profiler/cli.js'
import { CLI } from './profiler-cli.js'
import { collected, nodeArgs, spawnNode } from './run.js'

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
