// What the runner takes from .taprc, so that `npm test` and `npm run test:coverage` (tap itself) run
// the same files with the same preloads and timeout. Loading tap's config also puts its values in
// this process's environment (TAP_TIMEOUT and the others, as tap's runner does), which the test
// files inherit: each file's own tap then times out at .taprc's timeout too.
import '@tapjs/core' // first: tap's packages cannot load @tapjs/config before it
import { TapConfig } from '@tapjs/config'

export interface SuiteConfig {
  /** The project's root (where .taprc is): the test files' working directory. */
  root: string
  /** .taprc node-arg: the preloads of every test process. */
  nodeArgs: string[]
  /** .taprc timeout, in ms: a file still running then is killed. */
  timeoutMs: number
  /** .taprc jobs: how many files run at once. */
  jobs: number
}

export async function loadSuiteConfig (): Promise<SuiteConfig> {
  const config = await TapConfig.load()
  return {
    root: config.projectRoot,
    nodeArgs: config.get('node-arg') ?? [],
    timeoutMs: (config.get('timeout') ?? 30) * 1000,
    jobs: config.get('jobs') ?? 1
  }
}
