import type pg from 'pg'

/**
 * A statement of fixed text that the writer runs batch after batch, prepared once per connection
 * under `name` (node-postgres sends Parse the first time, then only Bind and Execute): the server
 * parses and analyses it once, and after five executions plans it once too (its generic plan),
 * instead of for every batch (issue 38: at PROFILER_SAMPLE=0.01 the planning of these statements
 * was about a third of the server's time a batch). Only for text that never varies: each name
 * holds one text for the life of the connection.
 */
export function prepared (name: string, text: string): (values: unknown[]) => pg.QueryConfig {
  return values => ({ name, text, values })
}
