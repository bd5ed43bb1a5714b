// .taprc's node-args preload TypeBox (test/preload-typebox.cts): for a process that uses it, cheaper
// than importing it (~0.13 s of CPU against ~0.2 s without tap's hooks, 29 Nov), and for one that
// does not, ~0.13 s for nothing: 10 of the files that run alone and a quarter of those that share a
// process never reach it. A process gets the preload only if its files' modules reach TypeBox
// (packages-reached.ts); a file the walk misread would only import TypeBox as usual.
import { loadsTypebox, packageNamesReached } from './packages-reached.js'

/** The node-arg that preloads TypeBox (.taprc, whatever folder it names). */
const isTypeboxPreload = (arg: string): boolean => /^--require=.*\bpreload-typebox\.cjs$/.test(arg)

/** Whether the modules of `files` (paths from `root`) reach TypeBox. */
function reachesTypebox (files: string[], root: string): boolean {
  return packageNamesReached(files, root).some(loadsTypebox)
}

/** `nodeArgs` for a process that runs `files` (paths from `root`): without TypeBox's preload when they do not use it. */
export function preloadsFor (files: string[], root: string, nodeArgs: string[]): string[] {
  return reachesTypebox(files, root) ? nodeArgs : nodeArgs.filter(arg => !isTypeboxPreload(arg))
}

/** `files` (paths from `root`) in two lots, those that reach TypeBox first; an empty lot is left out. */
export function apartByTypebox (files: string[], root: string): string[][] {
  const withTypebox = new Set(files.filter(file => reachesTypebox([file], root)))
  return [files.filter(file => withTypebox.has(file)), files.filter(file => !withTypebox.has(file))].filter(lot => lot.length > 0)
}
