// What the env panel's partial shows besides the data: the commit or why there is none, and each
// configuration value as text.
import type { EnvData } from './schema.js'

export function envView (data: EnvData) {
  return {
    commit: data.commit ?? 'not built from a checkout',
    configuration: Object.entries(data.configuration).map(([name, value]) => ({
      name,
      value: typeof value === 'string' ? value : JSON.stringify(value) ?? 'undefined'
    }))
  }
}
