import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';

/**
 * The guards' scenario (issue 29): self-managed-refresh with `nodes` nodes and as many trainer pods and no PDB, so
 * that nothing but a guard stops the bot replacing the group node by node (cordon, drain, terminate). The control
 * plane updates in one simulated minute and an add-on in ten seconds: the guards watch the node replacement, which
 * runs at the scenario's own pace, and at the 30× the guard tests run at a ten-minute control-plane update was 20 s
 * of every upgrade and every rollback spent waiting.
 */
export function guardScenario(nodes = 5): object {
  const world = parseYaml(readFileSync(new URL('../../src/sim/scenarios/self-managed-refresh.yaml', import.meta.url), 'utf8'));
  world.eks = { ...world.eks, controlPlaneUpdateMinutes: 1, addonUpdateSeconds: 10 };
  const cluster = world.clusters[0];
  Object.assign(cluster.selfManaged[0], { count: nodes, min: nodes, max: nodes + 1 });
  cluster.kubernetes = cluster.kubernetes.filter((object: { kind: string }) => object.kind !== 'PodDisruptionBudget');
  cluster.kubernetes.find((object: { kind: string; metadata: { name: string } }) => object.kind === 'Deployment' && object.metadata.name === 'trainer').spec.replicas = nodes;
  return world;
}

/** The trainer's availability, as a guard's PromQL query over the simulator's kube-state-metrics. */
export const TRAINER_AVAILABILITY = 'min(kube_deployment_status_replicas_available{deployment="trainer"} / kube_deployment_spec_replicas{deployment="trainer"})';
