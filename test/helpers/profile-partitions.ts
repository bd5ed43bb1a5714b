import { queryOn } from './postgres.js'

/** The numbers of the time partitions of a PostgreSQL profile store's `profiles` table (profiles_p<n>), oldest first. */
export async function profilePartitions (url: string): Promise<number[]> {
  const rows = await queryOn(url, `SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
    JOIN pg_class p ON p.oid = i.inhparent WHERE p.relname = 'profiles'`)
  return rows.map(row => Number(String(row.name).replace('profiles_p', ''))).sort((x, y) => x - y)
}
