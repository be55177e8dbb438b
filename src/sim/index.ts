/**
 * `@eks-upgrade-bot/sim`: the whole simulator API, the union of its three parts (docs/simulator.md, "The simulator
 * as a package"), for tests and tools that use more than one of them:
 *
 *   twin/index.ts      `@eks-upgrade-bot/sim/twin`      the twin runtime rehearsals run on; the only part the
 *                                                        product (src/, commands/, jobs/) may import
 *   services/index.ts  `@eks-upgrade-bot/sim/services`  the fake AWS, Kubernetes and Slack services, their server
 *                                                        and CLI (tests, bench/, src/demo, src/playground)
 *   kit/index.ts       `@eks-upgrade-bot/sim/kit`       the test kit: fixtures, catalogs, Slack payloads and limits
 *
 * These four files are the only ones code outside src/sim may import; everything else in src/sim is its inside,
 * and the import rules in .dependency-cruiser.cjs fail `npm test` on a reach past them.
 *
 * The simulator imports no product code except src/kube-types (the shape of a Kubernetes object); it keeps its
 * own selectors, readiness and budgets, because a test oracle must not share the product's bugs.
 */

export * from './twin/index.js';
export * from './services/index.js';
export * from './kit/index.js';
