// How the files that may share a process (shared-process.ts) are put in processes: groups of up to
// GROUP_SIZE, each about as long as the others (by the last run's durations), so that one group's
// failure re-runs few files and the groups spread over the jobs as the other files do.
import { longestFirst, type Durations } from './durations.js'

/** Files a process: ~0.4 s of preloads and ~0.5 s of the app's first load saved for each but the first. */
const GROUP_SIZE = 8

export function inGroups (files: string[], durations: Durations): string[][] {
  const groups: string[][] = Array.from({ length: Math.ceil(files.length / GROUP_SIZE) }, () => [])
  // Dealt longest first, back and forth over the groups.
  longestFirst(files, durations).forEach((file, i) => {
    const round = Math.floor(i / groups.length)
    const at = i % groups.length
    groups[round % 2 === 0 ? at : groups.length - 1 - at]?.push(file)
  })
  return groups
}
