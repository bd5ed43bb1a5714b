// A stored profile of the status poll as the writer receives it, for tests that write straight to a
// store (openStoreWriter): its number `n` gives its id (a millisecond each after `startMs`), token and URL.
import { ID_SLOTS_PER_MS, type ProfileRecord } from '../../plugins/profiler/profile.js'

export function monitorProfile (n: number, startMs: number, tokenPrefix: string, panels: string): ProfileRecord {
  return {
    id: (startMs + n) * ID_SLOTS_PER_MS,
    token: `${tokenPrefix}${n.toString(16).padStart(6, '0')}`,
    parentToken: null,
    type: 'request',
    ip: '127.0.0.1',
    method: 'POST',
    url: `http://localhost/monitor/MonitorPooling?n=${n}`,
    statusCode: 200,
    durationMs: 1,
    route: '/monitor/MonitorPooling',
    panels
  }
}
