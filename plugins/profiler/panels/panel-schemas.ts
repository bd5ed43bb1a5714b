// Each panel's data, exactly, by the panel's name: objects declare every property (tests check what
// each collector gives against it: test/profiler/panel-schemas.property.test.ts). Apart from the
// panels (index.ts): their code runs in the profiler's threads too, which load no TypeBox (about
// 0.13 s of CPU a thread start).
import type { TSchema } from 'typebox'
import { DbSchema } from './db/schema.js'
import { EnvSchema } from './env/schema.js'
import { ExceptionSchema } from './exception-schema.js'
import { LogsSchema } from './logs/schema.js'
import { PerformanceSchema } from './performance-schema.js'
import { RequestSchema } from './request/schema.js'
import { RouterSchema } from './router-schema.js'
import { TimelineSchema } from './timeline/schema.js'

export const PANEL_SCHEMAS: Readonly<Record<string, TSchema>> = {
  request: RequestSchema,
  performance: PerformanceSchema,
  exception: ExceptionSchema,
  router: RouterSchema,
  db: DbSchema,
  logs: LogsSchema,
  timeline: TimelineSchema,
  env: EnvSchema
}
