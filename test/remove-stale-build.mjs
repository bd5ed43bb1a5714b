// Run by `npm run build:test` after tsc, which builds incrementally (tsconfig.incremental.json: its record is dist/test/.tsbuildinfo,
// so emptying dist/test builds everything again). Removes what dist/test holds for a test source that
// is gone, as emptying dist/test before every build did: a renamed or deleted test file must not go
// on running from its old build (tap runs every dist/test/**/*.test.js).
import { existsSync, readdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'

// An output's ending and the source endings it is built from.
const BUILT_FROM = [['.js', ['.ts', '.tsx']], ['.cjs', ['.cts']], ['.mjs', ['.mts']]]

function sourceOf (output) {
  const name = output.endsWith('.map') ? output.slice(0, -'.map'.length) : output
  for (const [ending, sources] of BUILT_FROM) {
    if (name.endsWith(ending)) return sources.map(source => name.slice(0, -ending.length) + source)
  }
  return null
}

let removed = 0
for (const entry of readdirSync('dist/test', { recursive: true, withFileTypes: true })) {
  if (!entry.isFile()) continue
  const output = join(entry.parentPath, entry.name)
  const sources = sourceOf(output.slice('dist/'.length))
  if (sources === null || sources.some(source => existsSync(source))) continue
  rmSync(output)
  removed++
}
if (removed > 0) console.log(`removed ${removed} file(s) of dist/test built from sources that are gone`)
