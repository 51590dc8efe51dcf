// fast-check's run count and seed for the property tests: CAIRN_PROPERTY_RUNS and CAIRN_PROPERTY_SEED
// override both; in CI the seed is fixed (a failure there replays), elsewhere it is random.
export function propertyRuns(runs: number, ciSeed: number): { numRuns: number; seed: number | undefined } {
  const seed = process.env.CAIRN_PROPERTY_SEED
    ? Number(process.env.CAIRN_PROPERTY_SEED)
    : process.env.CI
      ? ciSeed
      : undefined;
  return { numRuns: Number(process.env.CAIRN_PROPERTY_RUNS ?? runs), seed };
}
