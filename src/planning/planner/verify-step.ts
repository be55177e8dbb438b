import type { PlanStep } from '../../ports/upgrade-plan.js';
import { MINUTES } from './step-estimates.js';

/**
 * The last step of an upgrade and of a rollback: the same checks either way (no kubelet newer than the control
 * plane, deployments available, PDBs healthy). An upgrade also diffs container images before and after, the
 * workshop's 1.25.txt / 1.26.txt comparison; a rollback has no "after" image set worth comparing.
 */
export function verifyStep(cluster: string, to: string, purpose: 'upgrade' | 'rollback'): PlanStep {
  const commands = ['kubectl get nodes -o wide', 'kubectl get deploy,sts,pdb -A'];
  if (purpose === 'upgrade') commands.push("kubectl get pods -A -o jsonpath='{.items[*].spec.containers[*].image}' | tr -s '[[:space:]]' '\\n' | sort | uniq -c");
  return {
    kind: 'verify',
    phase: 'verify',
    title: `Verify ${to}: nodes within skew, deployments available, PDBs healthy`,
    resource: `cluster/${cluster}`,
    to,
    estimateMinutes: MINUTES.verify,
    actions: [],
    details: [purpose === 'upgrade' ? "Compares container images before and after (the workshop's 1.25.txt / 1.26.txt diff)." : 'No kubelet newer than the control plane.'],
    commands,
  };
}
