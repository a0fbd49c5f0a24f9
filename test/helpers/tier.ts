/**
 * The guard of the unit tier (test/tiers.ts): under KAFKALITE_TEST_TIER=unit, reaching a peer
 * (python3, kcat, the Node 22 binary) or ../shared throws, naming the list to put the file in. A
 * test that needs one then fails loudly in the unit tier instead of being quietly counted a unit test.
 */
export const UNIT_TIER = process.env.KAFKALITE_TEST_TIER === 'unit';

/** Where ../shared points in the unit tier: nowhere, with the reason in the path any ENOENT prints. */
export const NO_SHARED_IN_UNIT_TIER = '/nonexistent/kafkalite-unit-tier-has-no-shared--list-the-test-in-test/tiers.ts';

export function requirePeer(what: string): void {
  if (UNIT_TIER) throw new Error(`the unit tier runs without ${what}: list this test file in test/tiers.ts (PEER_TESTS)`);
}

/**
 * A loop's size: the full suite's, or the unit tier's smaller one, so the quick tier stays quick
 * (the same seeds and the same assertions; the full suite, and CI, run the full count).
 */
export function tierCount(full: number, unit: number): number {
  return UNIT_TIER ? unit : full;
}
