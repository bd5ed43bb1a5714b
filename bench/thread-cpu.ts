// CPU time per thread of a running server, read from /proc (Linux): the request thread is the
// process's main thread, the writer thread names itself `profiler-writer` (writer-worker.ts),
// everything else (V8's helper threads, libuv's pool) is "the rest".
import { readdirSync, readFileSync } from 'node:fs'

export interface ThreadCpu { requestMs: number, writerMs: number, restMs: number }

const TICK_MS = 10 // USER_HZ is 100 on Linux

/** utime + stime of one thread, in ms; fields counted after the command name, which may hold spaces. */
function threadMs (pid: number, tid: string): number {
  const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8')
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS
}

/** Every thread's CPU so far, split into request thread, writer thread and the rest. */
export function readThreadCpu (pid: number): ThreadCpu {
  const cpu: ThreadCpu = { requestMs: 0, writerMs: 0, restMs: 0 }
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    let ms: number
    let name: string
    try {
      ms = threadMs(pid, tid)
      name = readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim()
    } catch {
      continue // the thread ended between the listing and the read
    }
    if (tid === String(pid)) cpu.requestMs += ms
    else if (name === 'profiler-writer') cpu.writerMs += ms
    else cpu.restMs += ms
  }
  return cpu
}

/** This process's main thread's CPU so far in ns (the scheduler's count): finer than stat's 10 ms ticks, without V8's helper threads. */
export function mainThreadNs (): number {
  return Number(readFileSync(`/proc/self/task/${process.pid}/schedstat`, 'utf8').split(' ')[0])
}

export interface CpuPerRequest { requestUs: number, writerUs: number, restUs: number, totalUs: number }

/** CPU used between two readings, in µs per request. */
export function cpuPerRequest (before: ThreadCpu, after: ThreadCpu, requests: number): CpuPerRequest {
  const per = (key: keyof ThreadCpu): number => ((after[key] - before[key]) * 1000) / Math.max(1, requests)
  const requestUs = per('requestMs')
  const writerUs = per('writerMs')
  const restUs = per('restMs')
  return { requestUs, writerUs, restUs, totalUs: requestUs + writerUs + restUs }
}
