import closeWithGrace from 'close-with-grace'
import type { FastifyInstance } from 'fastify'
import { buildApp } from './app.js'
import { ConfigError, loadConfig, type Config } from './config.js'

function exitWith (message: string): never {
  process.stderr.write(`${message}\n`)
  process.exit(1)
}

let config: Config
try {
  config = loadConfig()
} catch (err) {
  if (err instanceof ConfigError) exitWith(err.message)
  throw err
}

let app: FastifyInstance
try {
  app = await buildApp(config)
  await app.ready()
} catch (err) {
  // A database that cannot be opened, a failed migration: one line that names the cause.
  exitWith(`Cannot start: ${(err as Error).message}`)
}

// SIGTERM/SIGINT: stop accepting, let in-flight requests finish, close the databases.
// 25 s: beside CI's CPU hog app.close() passed 10 s twice (close-with-grace: "killed by timeout"); start-up took 11 s there.
// Within the 30 s a container is given by default between SIGTERM and SIGKILL.
closeWithGrace({ delay: 25_000 }, async ({ signal, err }) => {
  if (err !== undefined) app.log.error({ err }, 'closing after an uncaught error')
  else app.log.info(`${signal ?? 'close'} received: shutting down`)
  await app.close()
})

await app.listen({ port: config.port, host: config.host })
