import { dbPanel } from './db/index.js'
import { envPanel } from './env/index.js'
import { exceptionPanel } from './exception.js'
import { logsPanel } from './logs.js'
import type { AnyPanel } from './panel.js'
import { performancePanel } from './performance.js'
import { requestPanel } from './request/index.js'
import { routerPanel } from './router.js'
import { timelinePanel } from './timeline/index.js'

/** Every panel, in menu order. A new panel: its module (schema, collector, view, partial) and one line here. */
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
