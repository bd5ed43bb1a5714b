import { dbPanel } from './db/index.js'
import { envPanel } from './env/index.js'
import { exceptionPanel } from './exception.js'
import { logsPanel } from './logs/index.js'
import type { AnyPanel } from './panel.js'
import { performancePanel } from './performance.js'
import { requestPanel } from './request/index.js'
import { routerPanel } from './router.js'
import { timelinePanel } from './timeline/index.js'

/**
 * Every panel, in menu order. A new panel: its module (collector, view, partial, and its probe
 * when it takes something of each request on the request thread), one line here, and its schema's
 * line in panel-schemas.ts (a sibling file of the panel's: the threads load no TypeBox). A
 * panel's collector may read the data of the panels above it (the timeline reads db's and logs').
 */
export const panels: readonly AnyPanel[] = [
  requestPanel,
  performancePanel,
  exceptionPanel,
  routerPanel,
  dbPanel,
  logsPanel,
  timelinePanel,
  envPanel
]

/** Every panel's name, in menu order. */
export const PANEL_NAMES = panels.map(panel => panel.name)
