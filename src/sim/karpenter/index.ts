/**
 * The simulated Karpenter (v1 APIs: karpenter.sh/v1 NodePool and NodeClaim, karpenter.k8s.aws/v1 EC2NodeClass):
 * provisioning for unschedulable pods, drift detection, and replacement within NodePool disruption budgets.
 */
export { startKarpenterController, type KarpenterControllerOptions } from './karpenter-controller.js';
export { seedKarpenterNodes, type SeedKarpenterNodesOptions } from './seed-karpenter-nodes.js';
export { DEFAULT_LAUNCH_TIMINGS, type LaunchTimings } from './nodeclaims/nodeclaim-lifecycle.js';
export { allowedDisruptions, budgetsOf, isBudgetActive } from './disruption/disruption-budget.js';
export { driftReason, type DriftReason } from './disruption/drift.js';
export { resolveAmis } from './ami-resolution.js';
