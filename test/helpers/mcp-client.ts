import { join } from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import type { Test } from 'tap'
import { packageRoot } from '../../paths.js'
import { CLI } from './profiler-cli.js'

/** The SDK's own client, talking to the built command line's `mcp` over stdio. */
export async function mcpClient (t: Test, env: Record<string, string>): Promise<Client> {
  const client = new Client({ name: 'profiler-test', version: '1.0.0' })
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [join(packageRoot, 'dist', CLI), 'mcp'],
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
