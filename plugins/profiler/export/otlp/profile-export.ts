// The writer's side of the OTLP export: the profiles of a batch just stored become traces, encoded
// in the chosen protocol and handed to the exporter. Runs in the writer thread (writer-service.ts).
import type { OtlpSettings } from '../../../../lib/otlp-environment.js'
import type { ProfileRecord } from '../../profile.js'
import { fromStoredPanels, parseStoredPanels } from '../../panels/stored-panels.js'
import { timelinePanel } from '../../panels/timeline/index.js'
import { dbPanel } from '../../panels/db/index.js'
import { statementOf, type DbRecord } from '../../panels/db/collect.js'
import { exceptionPanel } from '../../panels/exception.js'
import { logsPanel } from '../../panels/logs/index.js'
import { requestPanel } from '../../panels/request/index.js'
import { PROCESS_SITES } from '../../panels/timeline/stored-form-constants.js'
import type { StoredRuns, StoredSite, StoredSiteRuns, TimelineData } from '../../panels/timeline/schema.js'
import { OtlpExporter, type ExportState, type ExportTuning } from './exporter.js'
import type { ExportedPanels } from './span-content.js'
import { jsonEncoding, protobufEncoding, type ExportedProfile, type ScopeInfo } from './trace-encoding.js'

export interface ExportSettings {
  otlp: OtlpSettings
  tuning: ExportTuning
  /** The instrumentation scope the spans are sent under (this service's profiler). */
  scope: ScopeInfo
}

/** A profile just stored, with its panels as collected (null: shaped before it was queued, read back from its JSON). */
export interface StoredForExport { record: ProfileRecord, panels: Record<string, unknown> | null }

export interface ProfileExport {
  offer: (profiles: StoredForExport[]) => void
  close: () => Promise<void>
}

/** A stored profile as the export reads it: its panels (the records as they are but the db panel's statements) and its timeline's hook runs. */
function exportedProfile ({ record, panels }: StoredForExport): ExportedProfile {
  if (panels !== null) {
    const stored = panels[timelinePanel.name] as StoredRuns | StoredSiteRuns | undefined
    // The records as the writer keeps them: the db panel's statements as the panel shows them (their values and kind).
    const db = panels[dbPanel.name] as DbRecord | undefined
    const exported = { request: panels[requestPanel.name], db: db === undefined ? undefined : { engine: db[0], statements: db[1].map(statementOf) }, logs: panels[logsPanel.name], exception: panels[exceptionPanel.name] } as ExportedPanels
    return { record, panels: exported, hooks: stored === undefined ? { items: [] } : { stored, processSites: panels[PROCESS_SITES] as StoredSite[] | undefined } }
  }
  const row = { method: record.method, url: record.url, route: record.route, status: record.statusCode, durationMs: record.durationMs, queries: record.queryCount ?? 0, queryMs: record.queryMs ?? 0 }
  // A profile queued whole (seeded, imported) may hold an older stored form of the timeline: read back as a reader reads it.
  const read = fromStoredPanels(parseStoredPanels(record.panels), row) as ExportedPanels & { timeline?: TimelineData }
  return { record, panels: read, hooks: { items: (read.timeline?.items ?? []).filter(item => item.kind !== 'statement') } }
}

/** `report` hears every change of the counts; `started` the first, before any profile is offered. */
export function startProfileExport (settings: ExportSettings, report: (state: ExportState) => void, started: (state: ExportState) => void): ProfileExport {
  const encoding = (settings.otlp.protocol === 'http/json' ? jsonEncoding : protobufEncoding)(settings.otlp.resource, settings.scope)
  const exporter = new OtlpExporter(settings.otlp, encoding, settings.tuning, report)
  started(exporter.snapshot())
  return {
    offer: profiles => {
      if (profiles.length === 0) return
      exporter.offer(profiles, exportedProfile)
    },
    close: async () => {
      await exporter.close()
    }
  }
}
