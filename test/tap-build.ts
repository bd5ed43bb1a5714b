// Run by `npm test` before tap: rebuilds tap's Test class when it was built for other plugins than
// .taprc asks for (after `npm ci` it holds tap's default set). tap rebuilds it by itself, but it
// has already chosen that run's test-process loaders from the old set by then (TypeScript, mock:
// tapjs/tapjs#974), so the first run after an install was ~20% slower than every later one.
// The three @tapjs packages are devDependencies at the versions tap itself pins: move them with tap.
import '@tapjs/core' // first: @tapjs/test cannot be the first of tap's modules loaded
import { TapConfig } from '@tapjs/config'
import { signature } from '@tapjs/test'
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const config = await TapConfig.load()
if (config.pluginSignature !== signature) {
  const tapPackage = fileURLToPath(import.meta.resolve('tap/package.json'))
  const { bin } = JSON.parse(readFileSync(tapPackage, 'utf8')) as { bin: { tap: string } }
  execFileSync(process.execPath, [join(dirname(tapPackage), bin.tap), 'build'], { stdio: 'inherit' })
}
