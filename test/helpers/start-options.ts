// The node options `npm start` runs the service with (package.json's start script: the main
// thread's heap bound), read from there so that the servers the tests and the soak start are run
// as the service is.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { packageRoot } from '../../paths.js'

function startNodeOptions (): string[] {
  const { scripts } = JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')) as { scripts: { start: string } }
  const match = /(?:^|&& )node ((?:--[\w-]+=\S+ )*)dist\/server\.js$/.exec(scripts.start)
  if (match === null) throw new Error(`package.json's start script does not end with "node [options] dist/server.js": ${scripts.start}`)
  return (match[1] ?? '').split(' ').filter(option => option !== '')
}

/** The options before dist/server.js in `npm start` (`--max-old-space-size=256`). */
export const START_NODE_OPTIONS = startNodeOptions()
