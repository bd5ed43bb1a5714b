// Preloaded into every test process (.taprc node-arg), after tap's coverage hooks are registered:
// loads tap's own ES modules (~150) in this thread with require() before the test file imports
// tap, as test/preload-typebox.cts does for TypeBox (~0.25 s of CPU a test process). Not passed
// on to the processes tests start: they are not tests.
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'

// tap's ES module entry (import.meta.resolve follows the import condition): require('tap') would
// load its CommonJS build instead, a second tap beside the one the test file imports.
try {
  createRequire(import.meta.url)(fileURLToPath(import.meta.resolve('tap')))
} catch (error) {
  // Node < 20.19 cannot require an ES module: tap is then imported as usual.
  if ((error as NodeJS.ErrnoException).code !== 'ERR_REQUIRE_ESM') throw error
}
