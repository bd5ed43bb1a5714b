// Which files a run takes: every compiled test (.taprc's include, dist/test/**/*.test.js), or the
// ones named on the command line. A name may be a file or a folder under dist/test, or a test's
// source (test/e2e/server.test.ts stands for dist/test/e2e/server.test.js).
import { existsSync, readdirSync, statSync } from 'node:fs'
import { join, relative, resolve } from 'node:path'

const TEST_FILE = /\.test\.js$/

/** The compiled test files under `dir`, as paths relative to `root`, sorted. */
function testFilesUnder (root: string, dir: string): string[] {
  return readdirSync(resolve(root, dir), { recursive: true, withFileTypes: true })
    .filter(entry => entry.isFile() && TEST_FILE.test(entry.name) && !entry.parentPath.includes('node_modules'))
    .map(entry => relative(root, join(entry.parentPath, entry.name)))
    .sort()
}

/** A name given on the command line, as the compiled path it stands for. */
function compiledPath (name: string): string {
  const path = name.replace(/^\.\//, '')
  if (path.startsWith('test/') && /\.tsx?$/.test(path)) return join('dist', path.replace(/\.tsx?$/, '.js'))
  if (path === 'test' || path.startsWith('test/')) return join('dist', path)
  return path
}

export function selectTestFiles (root: string, names: string[]): string[] {
  if (names.length === 0) return testFilesUnder(root, 'dist/test')
  const files = new Set<string>()
  for (const name of names) {
    const path = compiledPath(name)
    if (!existsSync(resolve(root, path))) throw new Error(`no such test file or folder: ${name} (${path}; run npm run build:test first?)`)
    if (statSync(resolve(root, path)).isDirectory()) for (const file of testFilesUnder(root, path)) files.add(file)
    else files.add(relative(root, resolve(root, path)))
  }
  return [...files]
}
