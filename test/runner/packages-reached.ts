// The packages a compiled module's imports reach, read from the files as node loads them: every
// static import and export, and the dynamic imports of a literal path, followed through the
// project's own modules (a package's own imports are not followed). Used to know what a process
// will load before it starts (typebox-preload.ts) and what a profiler thread loads
// (test/profiler/thread-modules.test.ts).
import { readFileSync } from 'node:fs'
import { dirname, relative, resolve } from 'node:path'

/** `import ... from 'x'`, `export ... from 'x'`, `import 'x'` and `import('x')`, as tsc writes them. */
const SPECIFIERS = /(?:^|;)\s*(?:import|export)\s(?:[^'";]*?\sfrom\s*)?['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)/gm

/** A module's imports: the project's modules (absolute paths) and the packages (by name). */
interface Imports { modules: string[], packages: string[] }

/** Each module's imports, read once: the runner walks from every process's files, over the same helpers. */
const importsOf = new Map<string, Imports>()

function imports (file: string): Imports {
  let found = importsOf.get(file)
  if (found === undefined) {
    found = { modules: [], packages: [] }
    for (const [, staticSpecifier, dynamicSpecifier] of readFileSync(file, 'utf8').matchAll(SPECIFIERS)) {
      const specifier = staticSpecifier ?? dynamicSpecifier ?? ''
      if (specifier.startsWith('.')) found.modules.push(resolve(dirname(file), specifier))
      else found.packages.push(specifier)
    }
    importsOf.set(file, found)
  }
  return found
}

/** The modules of `entries` reached, each with the module that first imported it (null: an entry), and the packages reached, each with its first importer. */
function walkFrom (entries: string[], base: string): { importer: Map<string, string | null>, packages: Map<string, string> } {
  const importer = new Map<string, string | null>()
  const packages = new Map<string, string>()
  const walk = (file: string, from: string | null): void => {
    if (importer.has(file)) return
    importer.set(file, from)
    const found = imports(file)
    for (const name of found.packages) if (!packages.has(name)) packages.set(name, file)
    for (const module of found.modules) walk(module, file)
  }
  for (const entry of entries) walk(resolve(base, entry), null)
  return { importer, packages }
}

/** The names of the packages that the modules of `entries` (paths from `base`) reach. */
export function packageNamesReached (entries: string[], base: string): string[] {
  return [...walkFrom(entries, base).packages.keys()]
}

/**
 * The packages (by the name imported) that the modules of `entries` reach, each with the chain of
 * modules that leads to it (paths relative to `base`, the entry first).
 */
export function packagesReached (entries: string[], base: string): Map<string, string[]> {
  const { importer, packages } = walkFrom(entries, base)
  const chainTo = (file: string): string[] => {
    const chain: string[] = []
    for (let at: string | null | undefined = file; typeof at === 'string'; at = importer.get(at)) chain.unshift(relative(base, at))
    return chain
  }
  return new Map([...packages].map(([name, file]) => [name, chainTo(file)]))
}

/** Whether importing a package loads TypeBox: TypeBox, its subpaths, Fastify's TypeBox type provider. */
export const loadsTypebox = (name: string): boolean => name === 'typebox' || name.startsWith('typebox/') || name === '@fastify/type-provider-typebox'
