/**
 * `@eks-upgrade-bot/sim/twin`: the simulator's twin runtime, the one part of the simulator the product may import
 * (jobs/rehearsal bundles it into dist/main.cjs for `eks-upgrade rehearse` and the Rehearse button; the import rules
 * in .dependency-cruiser.cjs fail `npm test` on product code importing any other part).
 *
 *   const twin = await startTwin(scenarioObject, { speed: 600 });  // the twin `eks-upgrade snapshot` writes, served
 *   twin.url; twin.kubeconfig();          // point the product's SDK adapters and client-node at it
 *   twin.setSpeed(n); twin.mutatingCalls(cluster);   // simulated seconds per real second; what the run changed
 *   await twin.stop();
 *
 * Its inside is the simulated world (aws/, kube/, karpenter/, iam/, scenario/) served over HTTP by sim-server.ts,
 * the same world the fake services serve to tests; nothing of the fake Slack or the test kit is bundled with it.
 */

export { startTwin, TWIN_LOOP_GAP_MS, countMutatingCalls, calendarAsOfFor, type SimTwin, type StartTwinOptions } from './start-twin.js';
// A scenario object is checked before a rehearsal starts: a ScenarioError names the field that is wrong.
export { validateScenario, ScenarioError } from '../scenario/load-scenario.js';
export type { Scenario } from '../scenario/scenario-schema.js';
