// The two profile store engines, for a test file that runs the same assertions on both: SQLite (a
// file in a temp folder) and PostgreSQL (one throwaway cluster per file, started at its first use,
// a database per store). Without PostgreSQL its tests are skipped with the reason (CI must have it).
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Test } from 'tap'
import { postgresBinDir, startPostgres, type PostgresCluster } from './postgres.js'

/** A fresh, empty store for one test: the environment that points an app (or the command line) at it. */
type FreshStore = (t: Test) => Promise<Record<string, string>>

export interface StoreEngine { name: 'sqlite' | 'postgres', fresh: FreshStore, skip: string | false }

/** Both engines; `root` is the file's top-level test (the cluster lives until it ends). */
export function storeEngines (root: Test): StoreEngine[] {
  const sqlite: StoreEngine = {
    name: 'sqlite',
    skip: false,
    fresh: async t => {
      const dir = mkdtempSync(join(tmpdir(), 'store-engine-'))
      t.teardown(() => { rmSync(dir, { recursive: true, force: true }) })
      return { PROFILER_DATABASE_PATH: join(dir, 'profiler.sqlite') }
    }
  }
  if (postgresBinDir() === null && process.env.CI !== 'true') {
    const skipped = async (): Promise<never> => { throw new Error('PostgreSQL is not installed') }
    return [sqlite, { name: 'postgres', fresh: skipped, skip: 'PostgreSQL is not installed (apt-get install postgresql)' }]
  }
  let cluster: Promise<PostgresCluster> | null = null
  let databases = 0
  return [sqlite, {
    name: 'postgres',
    skip: false,
    fresh: async () => {
      cluster ??= startPostgres(root)
      return { PROFILER_DATABASE_URL: await (await cluster).createDatabase(`store_${++databases}`) }
    }
  }]
}
