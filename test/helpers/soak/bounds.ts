// The soak's documented bounds (docs/development.md, "Soak test"): a small store so that retention runs all along.
export const SOAK_BOUNDS = {
  maxBytes: 8 * 2 ** 20,
  maxProfiles: 2000,
  maxRssBytes: 512 * 2 ** 20,
  maxPollP99Ms: 500
}
