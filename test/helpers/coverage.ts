// Whether a node process a test starts runs under tap's coverage hooks (server.ts, run.ts's spawnNode).

/**
 * The option of startServer (server.ts) and profilerBin (profiler-cli.ts) for a process whose code
 * other tests already cover in-process (the pages a browser test drives, a server beside a tracing
 * SDK's hooks when a plain one runs the same requests, command lines run side by side): started
 * without tap's coverage hooks, as `npm start` starts it. Those hooks, in every node process a test
 * starts, about double the CPU of a server's start (3.3 s against 6.8 s measured on 2 busy cores),
 * and the suite is CPU-bound.
 */
export const UNCOVERED = { coverage: false }
