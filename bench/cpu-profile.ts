// Reads the .cpuprofile files that `node --cpu-prof` writes (one per thread) and lists the
// functions with the most self time, so that anyone can see where the microseconds go.
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'

interface ProfileNode { id: number, callFrame: { functionName: string, url: string, lineNumber: number } }
interface CpuProfile { nodes: ProfileNode[], samples: number[], timeDeltas: number[] }

interface HotFunction { name: string, selfMs: number }
export interface ThreadProfile { file: string, thread: 'request' | 'writer', busyMs: number, top: HotFunction[] }

function label ({ functionName, url, lineNumber }: ProfileNode['callFrame']): string {
  const where = url === '' ? '' : ` ${url.replace(/^.*\/(node_modules|dist)\//, '$1/')}:${lineNumber + 1}`
  return `${functionName === '' ? '(anonymous)' : functionName}${where}`
}

/** Self time per function of one profile, idle time left out. */
function summarize (profile: CpuProfile, count: number): { busyMs: number, top: HotFunction[] } {
  const byId = new Map(profile.nodes.map(node => [node.id, node]))
  const self = new Map<string, number>()
  let busyUs = 0
  profile.samples.forEach((id, index) => {
    const node = byId.get(id)
    if (node === undefined || node.callFrame.functionName === '(idle)') return
    const us = profile.timeDeltas[index] ?? 0
    busyUs += us
    const name = label(node.callFrame)
    self.set(name, (self.get(name) ?? 0) + us)
  })
  const top = [...self].sort((a, b) => b[1] - a[1]).slice(0, count).map(([name, us]) => ({ name, selfMs: us / 1000 }))
  return { busyMs: busyUs / 1000, top }
}

/**
 * Every profile in `dir`. Node names them CPU.<date>.<pid>.<thread id>.<n>.cpuprofile; thread 0
 * is the request thread, the writer is the only worker.
 */
export function readThreadProfiles (dir: string, count = 15): ThreadProfile[] {
  return readdirSync(dir).filter(file => file.endsWith('.cpuprofile')).map(file => {
    const threadId = file.split('.').at(-3)
    const profile = JSON.parse(readFileSync(join(dir, file), 'utf8')) as CpuProfile
    return { file, thread: threadId === '0' ? 'request' : 'writer', ...summarize(profile, count) }
  })
}
