// The writer's side of the OTLP export: the profiles of a batch just stored become traces, encoded
// in the chosen protocol and handed to the exporter. Runs in the writer thread (writer-service.ts).
import type { OtlpSettings } from '../../../../lib/otlp-environment.js'
import type { ProfileRecord } from '../../profile.js'
import { builtFromCollected, fromStoredPanels } from '../../panels/stored-panels.js'
import { OtlpExporter, type ExportState, type ExportTuning } from './exporter.js'
import { profileTrace, type ExportedPanels } from './profile-spans.js'
import { jsonEncoding, protobufEncoding, type ScopeInfo } from './trace-encoding.js'

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

function panelsOf ({ record, panels }: StoredForExport): ExportedPanels {
  const row = { method: record.method, url: record.url, route: record.route, status: record.statusCode, durationMs: record.durationMs, queries: record.queryCount ?? 0, queryMs: record.queryMs ?? 0 }
  if (panels === null) return fromStoredPanels(JSON.parse(record.panels) as Record<string, unknown>, row) as ExportedPanels
  // As collected, but a panel built when read (the timeline) is its record: built here as a reader builds it.
  return builtFromCollected(panels, row) as ExportedPanels
}

/** `report` hears every change of the counts; `started` the first, before any profile is offered. */
export function startProfileExport (settings: ExportSettings, report: (state: ExportState) => void, started: (state: ExportState) => void): ProfileExport {
  const encoding = (settings.otlp.protocol === 'http/json' ? jsonEncoding : protobufEncoding)(settings.otlp.resource, settings.scope)
  const exporter = new OtlpExporter(settings.otlp, encoding, settings.tuning, report)
  started(exporter.snapshot())
  return {
    offer: profiles => {
      if (profiles.length > 0) exporter.offer(profiles.map(profile => () => encoding.encode(profileTrace(profile.record, panelsOf(profile)))))
    },
    close: async () => {
      await exporter.close()
    }
  }
}
