// The profiler's folder graph and its cycles (issue 41: "no folder-level cycle"). Every relative
// import counts, `import type` and `export ... from` included: a reader follows a type's import as
// far as a value's. TypeScript's own pre-processor reads the imports (no resolver: the specifiers
// are relative `.js` names of `.ts` files). docs/architecture.md#no-folder-cycle says what a node is.
import { readdirSync, readFileSync } from 'node:fs'
import { join, posix } from 'node:path'
import ts from 'typescript'

/** A folder graph: node -> node -> the file imports that make that edge ('from.ts -> to.ts'). */
type FolderGraph = Map<string, Map<string, string[]>>

/** The .ts files under `root`, by their path relative to it (with `/`), and their text. */
export function readTree (root: string): Map<string, string> {
  const files = new Map<string, string>()
  for (const entry of readdirSync(root, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.ts')) continue
    const path = join(entry.parentPath, entry.name)
    files.set(posix.normalize(path.slice(root.length + 1).split('\\').join('/')), readFileSync(path, 'utf8'))
  }
  return files
}

/**
 * The profiler's folders: each folder under the root with its subfolders merged in (a panel's or
 * an engine's folder is a part of panels/ or engine/); the top level's own files one node; its
 * index.ts, the door that imports every folder, left out.
 */
export function topLevelFolder (path: string): string | undefined {
  if (path === 'index.ts') return undefined
  const slash = path.indexOf('/')
  return slash === -1 ? '(top level)' : path.slice(0, slash + 1)
}

/** Inside one folder: its subfolders as nodes among themselves (the folder's own files left out). */
export function subfolderOf (folder: string): (path: string) => string | undefined {
  return path => {
    const parts = path.split('/')
    return parts.length > 2 && parts[0] === folder ? `${parts[0]}/${parts[1]}/` : undefined
  }
}

export function folderGraph (files: Map<string, string>, nodeOf: (path: string) => string | undefined): FolderGraph {
  const graph: FolderGraph = new Map()
  for (const [path, text] of files) {
    const from = nodeOf(path)
    if (from === undefined) continue
    const edges = graph.get(from) ?? new Map<string, string[]>()
    graph.set(from, edges)
    for (const { fileName } of ts.preProcessFile(text, true, true).importedFiles) {
      if (!fileName.startsWith('.')) continue
      const target = posix.join(posix.dirname(path), fileName).replace(/\.js$/, '.ts')
      const to = files.has(target) ? nodeOf(target) : undefined
      if (to === undefined || to === from) continue
      edges.set(to, [...edges.get(to) ?? [], `${path} -> ${target}`])
    }
  }
  return graph
}

/** Each group of nodes that reach one another (Tarjan's strongly connected components), as one cycle through them. */
export function folderCycles (graph: FolderGraph): string[] {
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const cycles: string[] = []
  const visit = (node: string): void => {
    index.set(node, index.size)
    low.set(node, index.size - 1)
    stack.push(node)
    for (const next of graph.get(node)?.keys() ?? []) {
      if (!index.has(next)) {
        visit(next)
        low.set(node, Math.min(low.get(node) ?? 0, low.get(next) ?? 0))
      } else if (stack.includes(next)) low.set(node, Math.min(low.get(node) ?? 0, index.get(next) ?? 0))
    }
    if (low.get(node) !== index.get(node)) return
    const group = stack.splice(stack.indexOf(node))
    if (group.length > 1) cycles.push(describe(graph, group.sort()[0] ?? node, new Set(group)))
  }
  for (const node of [...graph.keys()].sort()) if (!index.has(node)) visit(node)
  return cycles
}

/** One cycle from `start` (the group's first by name) back to it inside `group` (the shortest, breadth first), with the imports of each step. */
function describe (graph: FolderGraph, start: string, group: Set<string>): string {
  const cameFrom = new Map<string, string>()
  const queue = [start]
  for (let node = queue.shift(); node !== undefined; node = queue.shift()) {
    for (const next of graph.get(node)?.keys() ?? []) {
      if (!group.has(next) || cameFrom.has(next)) continue
      cameFrom.set(next, node)
      if (next === start) queue.length = 0
      else queue.push(next)
    }
  }
  const path = [start]
  for (let node = cameFrom.get(start); node !== undefined && node !== start; node = cameFrom.get(node)) path.unshift(node)
  path.unshift(start)
  const steps = path.slice(1).map((to, i) => `  ${path[i] ?? ''} -> ${to}: ${(graph.get(path[i] ?? '')?.get(to) ?? []).join(', ')}`)
  return `${path.join(' -> ')} (of ${[...group].sort().join(' ')})\n${steps.join('\n')}`
}
