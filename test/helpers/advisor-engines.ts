// The advisors' database on either engine, for a test file that runs the same assertions on both:
// SQLite (buildTestApp's file in a temp folder) and PostgreSQL (one throwaway cluster per file,
// started at its first use; the advisors and the profile store each in a database of their own).
// Without PostgreSQL only SQLite is given (needsPostgres skips with the reason; CI must have it).
import type { Test } from 'tap'
import { needsPostgres, startPostgres, type PostgresCluster } from './postgres.js'

export interface AdvisorEngine {
  name: 'sqlite' | 'postgres'
  /** The engine's n-th positional placeholder, as the repositories write it. */
  placeholder: (n: number) => string
  /** The environment of a fresh app on this engine (nothing for SQLite: buildTestApp's files). */
  env: (t: Test) => Promise<Record<string, string>>
}

/** Both engines (SQLite only without PostgreSQL); `root` is the file's top-level test (the cluster lives until it ends). */
export function advisorEngines (root: Test): AdvisorEngine[] {
  const engines: AdvisorEngine[] = [{ name: 'sqlite', placeholder: () => '?', env: async () => ({}) }]
  if (!needsPostgres(root)) return engines
  let cluster: Promise<PostgresCluster> | null = null
  let databases = 0
  engines.push({
    name: 'postgres',
    placeholder: n => `$${n}`,
    env: async () => {
      cluster ??= startPostgres(root)
      const started = await cluster
      return { DATABASE_URL: await started.createDatabase(`advisors_${++databases}`), PROFILER_DATABASE_URL: await started.createStore(`store_${databases}`) }
    }
  })
  return engines
}
