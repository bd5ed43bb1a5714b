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
export const migrationsDir = join(packageRoot, 'migrations')
export const profilerMigrationsDir = join(packageRoot, 'migrations', 'profiler')
export const sampleAdvisorsFile = join(packageRoot, 'data', 'advisors.json')
export const postgresMigrationsDir = join(packageRoot, 'migrations', 'postgres')
export const profilerPostgresMigrationsDir = join(packageRoot, 'migrations', 'profiler', 'postgres')
