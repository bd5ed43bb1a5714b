// Preloaded into every test process (.taprc node-arg) and every node process the tests start
// (test/helpers/run.ts nodeArgs). tap's coverage hooks run, on Node 20, on a thread of their own:
// each ES module imported is a round trip to it. TypeBox is 373 ES modules, imported by nearly
// every test (~0.4 s of CPU a process through the hooks). require() loads them in this thread
// (require(esm), Node >= 20.19); the imports that follow find them loaded: the same modules.
try {
  require('typebox')
} catch (error) {
  // Node < 20.19 cannot require an ES module: TypeBox is then imported as usual.
  if ((error as NodeJS.ErrnoException).code !== 'ERR_REQUIRE_ESM') throw error
}
