/**
 * `@eks-upgrade-bot/sim/services`: the simulator as a test double — fake AWS (EKS, EC2, Auto Scaling, SSM,
 * CloudWatch, IAM, STS), fake Kubernetes API servers and a fake Slack, served over HTTP; `npm run sim`
 * (services/cli.ts, bundled as dist/sim/cli.js for docker-compose) serves one from the command line. Tests, bench/,
 * src/demo and src/playground import it; the product does not (it gets the twin, `@eks-upgrade-bot/sim/twin`).
 *
 *   const sim = await startSimulator({ scenario: 'demo', port: 0, speed: 600 });  // world from a scenario, served
 *   sim.url; sim.kubeconfig();                // point the AWS SDK / client-node / kubectl at it
 *   sim.world.calls; sim.world.faults;        // mutating AWS calls AWS accepted; faults to inject (throttle, 5xx)
 *   await sim.close();                        // stop its controllers and the HTTP server
 *
 *   const slack = await startFakeSlack({ signingSecret });   // the fake Slack the demo and the playground use
 *
 * A world without HTTP (benchmarks, controller tests): `createWorld(loadScenario('karpenter-lab'), { clock })`,
 * with `createManualClock()` to move time by hand.
 */

// A world from a scenario, served on a port, at a speed.
export { startSimulator, renderKubeconfig, type SimServer, type StartSimulatorOptions } from '../sim-server.js';
export { createWorld, type CreateWorldOptions } from '../aws/create-world.js';
export type { SimWorld, SimCluster, SimCall, SimNodegroup } from '../aws/world-types.js';
export type { WallEvent } from '../aws/wall-timeline.js';
export { applyFaults, type FaultState } from '../aws/faults.js';
export { parseFaultFlags } from '../aws/parse-fault-flags.js';
export { loadScenario, scenarioNames, SCENARIOS_DIR } from '../scenario/load-scenario.js';
export { createSimClock, createManualClock, type SimClock } from '../sim-clock.js';

// The access the simulated AWS and Kubernetes enforce: an IAM policy and RBAC objects (deploy/ ships both).
export { loadIamPolicyFile, loadRbacFile } from '../access-files.js';

// The Kubernetes API alone (no AWS), for client-node and kubectl tests.
export {
  createSimKubeStore,
  startKubeControllers,
  startStandaloneKubeServer,
  closeWatches,
  appendDeploymentLog,
  type SimKubeStoreImpl,
  type StandaloneKubeServer,
} from '../kube/index.js';

// The fake Slack.
export * from '../slack/fake-slack.js';
