// The heap limit of the profiler's worker threads (the writer, SQLite's reader).
//
// V8 lets a heap grow to four times what survived its last full collection when its limit is
// large (the default on a machine with gigabytes of memory), and only to 1.3 times when the
// limit is 256 MiB or less. The threads keep little between messages (a batch of at most 4 MiB
// estimated for the writer; one search, page or HAR of at most 100 profiles for the reader) but
// allocate fast while the soak's scanner traffic runs, so with the default each held three or four
// times its live data: the soak's RSS reached its 512 MiB bound. 256 MiB is four times the largest
// document a thread builds (a HAR of 100 profiles whose 64 KiB bodies are all escaped control
// characters: test/profiler/thread-heap.test.ts), so the limit costs nothing but the waste.
import type { ResourceLimits } from 'node:worker_threads'

export const PROFILER_THREAD_LIMITS: ResourceLimits = { maxOldGenerationSizeMb: 256 }
