import neostandard from 'neostandard'

// Which way imports run (docs/architecture.md). ESLint's own rule reads the specifier as written,
// so each pattern is a regular expression over a relative path; dynamic import() is not checked.
const up = '^(\\.\\./)+'
const never = (folder, why) => ({ regex: `${up}${folder}/`, message: why })
const noRoutes = never('routes', 'the profiler never imports the business routes')
const noPages = never('pages', 'pages/ is web only: import from query/ or export/')
const noQuery = never('query', 'query/ sits above the engines and the runtime')
const noRuntime = never('runtime', 'the runtime calls the engines, not the other way')
const noEngine = never('engine', 'export/ builds documents from stored profiles, whatever stored them')
const aboveThePanels = [
  ...['engine', 'runtime', 'query', 'pages'].map(folder =>
    never(folder, 'a panel reads a capture (capture/, lib/): the store, the queries and the pages read panels, not the other way')),
  never('collect', "a panel reads the capture (capture/): the recorder (collect/) calls the panels' probes, not the other way"),
  never('export', "export/ builds documents from the panels' data: a panel does not read them")
]
// Below every folder (no folder-level cycle, test/unit/folder-cycles.test.ts): the top level's shared modules
// (all but index.ts, the door) and capture/ (what the request thread hands the writer) import no folder of the profiler.
const noFolder = (prefix, why) => ({ regex: `${prefix}[^./][^/]*/`, message: why })
const topLevelBelow = noFolder('^\\./', "the top level's shared modules sit below every folder of the profiler: move what needs a folder into it")
const captureBelow = noFolder('^\\.\\./', 'capture/ is what the request thread hands the writer: it reads the top level and lib/ only')
const noCollect = never('collect', 'collect/ (the recorder) sits above the runtime: the runtime reads the capture (capture/)')
const noEngineFolder = { regex: `${up}engine/(sqlite|postgres)/`, message: 'the runtime reaches an engine through engine/contract.ts and engine/open-*.ts' }
// The two threads' code apart (issue 41): writer/ is the writer thread's, collect/ the request thread's.
// Nothing imports writer/ but index.ts, which picks the inline writer (runtime/writer-thread.ts starts the
// thread by its file's URL). The writer reads none of collect/ (the capture is in capture/, the probes' order
// in panels/probes.ts) and of runtime/ only the hand-over: the messages, the statistics' columns and the
// client class the inline writer extends.
const noWriter = never('writer', "the writer thread's code (writer/) is imported by index.ts only: the request thread hands it messages")
const writerSide = [
  never('pages', 'the writer thread answers no request'),
  never('query', 'the writer thread answers no request'),
  never('alerts', 'the alerts run on the request thread'),
  never('collect', "collect/ is the request thread's: the writer reads the capture (capture/) and the probes' order (panels/probes.ts)"),
  { regex: '^\\.\\./runtime/(?!writer-protocol\\.js$|writer-client\\.js$|statistics-columns\\.js$)', message: 'the writer reads of runtime/ only the hand-over: writer-protocol.ts, statistics-columns.ts, writer-client.ts' }
]

// Only what Node and Fastify document (issue 41): the internals the service once reached into, refused
// in the shipped code (a Node or Fastify upgrade broke them silently).
const UNDOCUMENTED = 'an internal of Node or Fastify: use what they document (docs/security.md, docs/profiler.md)'
const supportedApisOnly = {
  files: ['*.ts', 'lib/**/*.ts', 'plugins/**/*.ts', 'routes/**/*.ts', 'scripts/**/*.ts'],
  rules: {
    'no-restricted-properties': ['error',
      { property: 'kOnExecute', message: `Node's HTTP parser slot: ${UNDOCUMENTED}` },
      { property: 'shouldKeepAlive', message: `set a Connection: close header instead; ${UNDOCUMENTED}` },
      { object: 'require', property: 'cache', message: UNDOCUMENTED }],
    'no-restricted-syntax': ['error',
      { selector: "MemberExpression[object.callee.name='createRequire'][property.name='cache']", message: `require.cache: ${UNDOCUMENTED}` },
      { selector: "VariableDeclarator[init.callee.name='createRequire'] > ObjectPattern > Property[key.name='cache']", message: `require.cache: ${UNDOCUMENTED}` },
      { selector: "CallExpression[callee.property.name=/^define(Property|Properties)$/] Literal[value='constructor']", message: `a faked constructor: ${UNDOCUMENTED}` }]
  }
}
// The fast tier (npm run test:unit): pure code only, so no app, server, database, browser or child process.
const unitOnly = [
  { regex: `${up}(app|server)\\.js$`, message: 'test/unit/ is the pure tier: an app test goes in test/plugins, test/profiler or test/e2e' },
  { regex: '^\\.\\./helpers/(app|logged-app|server|postgres|throwaway-cluster|store-engines|profiler|profiler-cli|run|raw-http|mcp-client|webhook-receiver|postgres-proxy)\\.js$', message: 'test/unit/ is the pure tier: no app, server, database or child process' },
  { regex: '(^|/)(sqlite|postgres)/', message: 'test/unit/ is the pure tier: no database' },
  { regex: '^(better-sqlite3|pg|playwright-core|node:child_process|node:worker_threads)$', message: 'test/unit/ is the pure tier: no database, browser, child process or thread' }
]

// The top level's direction (docs/architecture.md): routes -> plugins -> lib, and one door into the
// profiler (issue 41): outside plugins/profiler/, only its index.ts is imported.
const pastTheDoor = (prefix) => ({ regex: `${prefix}profiler/(?!index\\.js$)`, message: 'outside the profiler, import plugins/profiler/index.ts only (its door)' })
// Its second door: the command line's program, for the bin that runs it (the CLI and MCP server read the
// store themselves, in a process of their own, so they are no part of the plugin index.ts exports).
const pastTheCliDoor = { regex: '^\\.\\./plugins/profiler/(?!index\\.js$|cli/cli\\.js$)', message: 'the bin imports plugins/profiler/cli/cli.ts (the command line\'s door) or index.ts only' }
const pluginsBelowRoutes = never('routes', 'plugins/ sit below the routes: a route uses a plugin, not the other way')
const libBelowAll = [
  { regex: `${up}(plugins|routes)/`, message: 'lib/ sits below plugins/ and routes/: it imports neither' },
  { regex: `${up}(app|server)\\.js$`, message: 'lib/ sits below the app' }
]

function importRules (files, patterns) {
  return { files, rules: { 'no-restricted-imports': ['error', { patterns }] } }
}

export default [
  ...neostandard({
    ts: true,
    ignores: ['dist/**', 'dist-bench/**', 'var/**', '.tap/**', 'coverage/**']
  }),
  importRules(['plugins/profiler/**/*.ts'], [noRoutes, noWriter]),
  importRules(['plugins/profiler/engine/*.ts'], [noRoutes, noWriter, noPages, noQuery, noRuntime]),
  importRules(['plugins/profiler/engine/sqlite/**/*.ts'], [noRoutes, noWriter, noPages, noQuery, noRuntime, { regex: '^\\.\\./postgres/', message: 'the engines never import each other' }]),
  importRules(['plugins/profiler/engine/postgres/**/*.ts'], [noRoutes, noWriter, noPages, noQuery, noRuntime, { regex: '^\\.\\./sqlite/', message: 'the engines never import each other' }]),
  { ...importRules(['plugins/profiler/*.ts'], [noRoutes, noWriter, topLevelBelow]), ignores: ['plugins/profiler/index.ts'] },
  importRules(['plugins/profiler/capture/**/*.ts'], [noRoutes, noWriter, captureBelow]),
  importRules(['plugins/profiler/runtime/**/*.ts'], [noRoutes, noWriter, noPages, noQuery, noEngineFolder, noCollect]),
  importRules(['plugins/profiler/export/**/*.ts'], [noRoutes, noWriter, noPages, noQuery, noRuntime, noEngine]),
  importRules(['plugins/profiler/query/**/*.ts'], [noRoutes, noWriter, noPages, noRuntime]),
  importRules(['plugins/profiler/panels/**/*.ts'], [noRoutes, noWriter, ...aboveThePanels]),
  importRules(['plugins/profiler/writer/**/*.ts'], [noRoutes, ...writerSide]),
  importRules(['test/unit/**/*.ts'], unitOnly),
  importRules(['lib/**/*.ts'], libBelowAll),
  importRules(['app.ts', 'server.ts', 'config.ts'], [pastTheDoor('^\\./plugins/')]),
  importRules(['plugins/*.ts'], [pluginsBelowRoutes, pastTheDoor('^\\./')]),
  { ...importRules(['plugins/*/**/*.ts'], [pluginsBelowRoutes, pastTheDoor('^\\.\\./(\\.\\./)*')]), ignores: ['plugins/profiler/**'] },
  importRules(['routes/**/*.ts'], [pastTheDoor('^(\\.\\./)+plugins/')]),
  importRules(['plugins/profiler/cli/**/*.ts'], [noRoutes, noWriter, never('pages', 'the command line and MCP read through query/, never pages/')]),
  importRules(['scripts/profiler.ts'], [pastTheCliDoor]),
  { ...importRules(['scripts/**/*.ts'], [pastTheDoor('^(\\.\\./)+plugins/')]), ignores: ['scripts/profiler.ts'] },
  supportedApisOnly
]
