import { existsSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

// tsc copies neither templates nor SQL files, so everything on disk is resolved
// from the package root: the same code runs from dist/ and from the sources.
function findPackageRoot (start: string): string {
  let dir = start
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir)
    if (parent === dir) throw new Error(`No package.json above ${start}`)
    dir = parent
  }
  return dir
}

export const packageRoot = findPackageRoot(dirname(fileURLToPath(import.meta.url)))
export const templatesDir = join(packageRoot, 'templates')
export const sampleAdvisorsFile = join(packageRoot, 'data', 'advisors.json')
// One folder per database and engine: the app's (advisors) and the profile store's.
export const appSqliteMigrationsDir = join(packageRoot, 'migrations', 'app', 'sqlite')
export const appPostgresMigrationsDir = join(packageRoot, 'migrations', 'app', 'postgres')
export const profilerSqliteMigrationsDir = join(packageRoot, 'migrations', 'profiler', 'sqlite')
export const profilerPostgresMigrationsDir = join(packageRoot, 'migrations', 'profiler', 'postgres')
