import type { Collector } from './collector.js'
import { exceptionCollector } from './exception.js'
import { performanceCollector } from './performance.js'
import { requestCollector } from './request.js'
import { routerCollector } from './router.js'

/** Every panel, in menu order. A new panel: one collector file, one partial, one line here. */
export const collectors: Collector[] = [requestCollector, performanceCollector, exceptionCollector, routerCollector]
