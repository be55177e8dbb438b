/**
 * The simulator's entry point: the only module product code (src/demo, src/playground, test/, bench/) may import
 * from the simulator package (`@eks-upgrade-bot/sim`, folder src/sim). Everything else in src/sim is its inside; the
 * import rules in .dependency-cruiser.cjs fail `npm test` on a reach past this file.
 *
 *   const sim = await startSimulator({ scenario: 'demo', port: 0, speed: 600 });  // world from a scenario, served
 *   sim.url; sim.kubeconfig();                // point the AWS SDK / client-node / kubectl at it
 *   sim.world.calls; sim.world.faults;        // mutating AWS calls AWS accepted; faults to inject (throttle, 5xx)
 *   await sim.close();                        // stop its controllers and the HTTP server
 *
 *   const slack = await startFakeSlack({ signingSecret });   // the fake Slack the demo and the playground use
 *
 * Product API (rehearsals): `const twin = await startTwin(scenarioObject, { speed: 600 })` builds and serves a world
 * from a scenario object (the twin `eks-upgrade snapshot` writes), `twin.setSpeed(n)`, `twin.mutatingCalls(cluster)`
 * (AWS mutating calls and Kubernetes writes it received), `twin.stop()`. Everything below it is for tests and tools.
 *
 * A world without HTTP (benchmarks, controller tests): `createWorld(loadScenario('karpenter-lab'), { clock })`,
 * with `createManualClock()` to move time by hand. Fixtures for product tests: `makeNode` (a Node object as the
 * kubelet reports it), `checkMessageBlocks` (Slack's Block Kit limits), `signSlackRequest`, the version and add-on
 * catalogs the simulated AWS answers from.
 *
 * The simulator imports no product code except src/kube-types (the shape of a Kubernetes object); it keeps its
 * own selectors, readiness and budgets, because a test oracle must not share the product's bugs.
 */

// The product API (issue 15's rehearsals): a twin from a scenario object, at a speed; stop; its mutating-call count.
export { startTwin, countMutatingCalls, calendarAsOfFor, type SimTwin, type StartTwinOptions } from './twin.js';

// A world from a scenario, served on a port, at a speed.
export { startSimulator, renderKubeconfig, type SimServer, type StartSimulatorOptions } from './sim-server.js';
export { kubeRequestKey, type RequestCounter, type RequestCounts } from './request-counts.js';
export { createWorld, type CreateWorldOptions } from './aws/create-world.js';
export type { SimWorld, SimCluster, SimCall, SimNodegroup } from './aws/world-types.js';
export type { WallEvent } from './aws/wall-timeline.js';
export { applyFaults, type FaultState } from './aws/faults.js';
export { parseFaultFlags } from './aws/parse-fault-flags.js';
export { loadScenario, scenarioNames, validateScenario, ScenarioError, SCENARIOS_DIR } from './scenario/load-scenario.js';
export type { Scenario } from './scenario/scenario-schema.js';
export { createSimClock, createManualClock, type SimClock } from './sim-clock.js';

// The access the simulated AWS and Kubernetes enforce: an IAM policy and RBAC objects (deploy/ ships both).
export { loadIamPolicyFile, loadRbacFile } from './access-files.js';
export { allowedActions, parsePolicyDocument, type PolicyDocument, type PolicyStatement } from './iam/policy-document.js';

// Changes to a running world that a real cluster would see happen on its own.
export { removeNode } from './aws/node-factory.js';

// The Kubernetes API alone (no AWS), for client-node and kubectl tests.
export {
  createSimKubeStore,
  startKubeControllers,
  startStandaloneKubeServer,
  closeWatches,
  appendDeploymentLog,
  makeNode,
  type SimKubeStoreImpl,
  type StandaloneKubeServer,
  type NodeSpecInput,
} from './kube/index.js';

// What the simulated AWS answers from.
export { amiIdFor, kubeletVersionFor, knownMinors } from './aws/eks/version-catalog.js';
export { defaultAddonVersion } from './aws/eks/addon-catalog.js';

// EKS version rollback and Auto Mode: the 7-day window of a cluster and what an Auto Mode node looks like.
export { ROLLBACK_WINDOW_MS, rollbackWindowOf, type RollbackWindow } from './aws/eks/rollback-window.js';
export { isAutoModeNode, AUTO_MODE_TICK_MS } from './aws/eks/auto-mode.js';

// The fake Slack.
export * from './slack/fake-slack.js';
export { checkMessageBlocks, checkModalView } from './slack/web-api/block-kit-rules.js';
export { signSlackRequest, computeSlackSignature, type SlackSignatureHeaders } from './slack/sign-slack-request.js';
export { buildSlashCommandBody, buildBlockActionsPayload, encodePayload, type SlashCommandFields } from './slack/interaction-payloads.js';
/** How long an on-demand insights refresh takes on the simulator's clock (EKS: about a minute). */
export { INSIGHTS_REFRESH_MS } from './aws/eks/insights.js';
