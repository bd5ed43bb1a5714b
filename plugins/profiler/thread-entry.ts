// The first module of each profiler thread (profiler-thread.ts starts every thread here, its own
// module's URL as the last argument). The thread's modules import TypeBox through the panels'
// schemas: 373 ES modules, each a round of Node's asynchronous ES module loader in a fresh thread.
// require() loads them in one synchronous pass (require(esm), Node >= 20.19), and the thread's own
// imports then find them loaded, the same modules: about 0.05 s of CPU less a thread start, 0.1 s a
// server start with the profiler on.
import { createRequire } from 'node:module'

try {
  createRequire(import.meta.url)('typebox')
} catch (error) {
  // Node < 20.19 cannot require an ES module: the thread's modules import TypeBox as usual.
  if ((error as NodeJS.ErrnoException).code !== 'ERR_REQUIRE_ESM') throw error
}
const threadModule = process.argv.at(-1)
if (threadModule === undefined) throw new Error('a profiler thread was started without its module')
await import(threadModule)
