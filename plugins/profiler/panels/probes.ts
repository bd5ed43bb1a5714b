// The panels' probes (panels/probe.ts) as the recorder calls them: each list made once, in the
// panel index's order, so that a request pays one call per probe that has something to do. What
// the probes take travels in the capture as one array in that order (`taken`), read back by the
// writer thread (shape.ts) with the same list.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { panels } from './index.js'
import type { AnyPanel, Panel } from './panel.js'
import type { PanelProbe, ProbeServerOptions, ProbeSettings } from './probe.js'
import type { TSchema } from 'typebox'

type Probed = Panel<TSchema, any, any> & { probe: PanelProbe<any> }

const hasProbe = (panel: AnyPanel): panel is Probed => panel.perProcess !== true && panel.probe !== undefined

/** The panels with a probe, in index order: `capture.taken[i]` is what the i-th one took. */
export const probedPanels: readonly Probed[] = panels.filter(hasProbe)
const probes = probedPanels.map(panel => panel.probe)

/** Where what `panel`'s probe took is in a capture's `taken` (-1: it has no probe). Called once a batch: the panels import this module. */
export const takenIndex = (panel: AnyPanel): number => probedPanels.indexOf(panel as Probed)

const withBeforeHandler = probes.filter(probe => probe.beforeHandler !== undefined)
const withServerTiming = probes.filter(probe => probe.serverTiming !== undefined)
const withBytes = probes.map(probe => probe.bytes)

/** Fastify's options every probe asks for, merged; two probes asking for the same option is a mistake in the index. */
export function probeServerOptions (settings: ProbeSettings): ProbeServerOptions {
  const merged: Record<string, unknown> = {}
  for (const panel of probedPanels) {
    for (const [name, value] of Object.entries(panel.probe.serverOptions?.(settings) ?? {})) {
      if (name in merged) throw new Error(`two panels' probes set Fastify's ${name} (the second: ${panel.name})`)
      merged[name] = value
    }
  }
  return merged as ProbeServerOptions
}

/** Installs every probe on the root instance: before any plugin is registered. */
export function installProbes (app: FastifyInstance): void {
  for (const probe of probes) probe.install?.(app)
}

export function probesBeforeHandler (request: FastifyRequest): void {
  for (const probe of withBeforeHandler) probe.beforeHandler?.(request)
}

/** The probes' Server-Timing entries, each followed by ", " (the recorder adds its own last). */
export function probesServerTiming (request: FastifyRequest): string {
  let header = ''
  for (const probe of withServerTiming) {
    const entry = probe.serverTiming?.(request) ?? null
    if (entry !== null) header += `${entry}, `
  }
  return header
}

/** What every probe takes of a finished request, in probedPanels' order. */
export function takeAll (request: FastifyRequest, reply: FastifyReply): unknown[] {
  const taken = new Array<unknown>(probes.length)
  for (let i = 0; i < probes.length; i++) taken[i] = probes[i]?.take(request, reply)
  return taken
}

/** The estimated bytes of what the probes took (the queue's bound). */
export function takenBytes (taken: readonly unknown[] | undefined): number {
  if (taken === undefined) return 0
  let bytes = 0
  for (let i = 0; i < taken.length; i++) {
    const value = taken[i]
    const size = withBytes[i]
    if (value !== undefined && size !== undefined) bytes += size(value)
  }
  return bytes
}
