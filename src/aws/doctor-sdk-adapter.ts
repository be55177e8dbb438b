import { DescribeSubnetsCommand, EC2Client } from '@aws-sdk/client-ec2';
import { IAMClient, SimulatePrincipalPolicyCommand, type ContextEntry } from '@aws-sdk/client-iam';
import { GetCallerIdentityCommand, STSClient } from '@aws-sdk/client-sts';
import type { AwsProbePort, SimulatedDecision, SimulationRequest } from '../ports/doctor-check.js';
import { clientCache, sdkClientConfig, type AwsAdapterOptions } from './aws-client-config.js';

/**
 * The AWS reads `doctor` makes and nothing else: STS GetCallerIdentity (no permission needed; with a cluster's
 * roleArn it proves the role can be assumed, through the same credential path as the bot's calls), IAM
 * SimulatePrincipalPolicy, and EC2's DryRun. IAM is global: its client is signed for us-east-1.
 */
export function createAwsProbePort(opts: AwsAdapterOptions = {}): AwsProbePort {
  const sts = clientCache((target) => new STSClient(sdkClientConfig('sts', target, opts)));
  const ec2 = clientCache((target) => new EC2Client(sdkClientConfig('ec2', target, opts)));
  const iam = new IAMClient(sdkClientConfig('iam', { region: 'us-east-1' }, opts));
  return {
    async callerIdentity(target) {
      const answer = await sts(target).send(new GetCallerIdentityCommand({}));
      return { arn: answer.Arn ?? '', account: answer.Account ?? '' };
    },
    async simulate(policySourceArn, requests) {
      const decisions: Record<string, SimulatedDecision> = {};
      // One call per resource and context: SimulatePrincipalPolicy applies its ResourceArns and context to every action.
      const groups = new Map<string, SimulationRequest[]>();
      for (const request of requests) {
        const key = JSON.stringify([request.resource, request.context ?? {}]);
        groups.set(key, [...(groups.get(key) ?? []), request]);
      }
      for (const group of groups.values()) {
        const [{ resource, context }] = group;
        const contextEntries: ContextEntry[] = Object.entries(context ?? {}).map(([ContextKeyName, value]) => ({ ContextKeyName, ContextKeyValues: [value], ContextKeyType: 'string' }));
        let marker: string | undefined;
        do {
          const page = await iam.send(new SimulatePrincipalPolicyCommand({
            PolicySourceArn: policySourceArn,
            ActionNames: group.map((r) => r.action),
            ...(resource !== '*' ? { ResourceArns: [resource] } : {}),
            ...(contextEntries.length > 0 ? { ContextEntries: contextEntries } : {}),
            ...(marker ? { Marker: marker } : {}),
          }));
          for (const result of page.EvaluationResults ?? []) {
            const name = result.EvalActionName ?? '';
            const decision = (result.EvalDecision ?? 'implicitDeny') as SimulatedDecision;
            // An action asked about on several resources is allowed only if every one allows it.
            if (decisions[name] === undefined || decisions[name] === 'allowed') decisions[name] = decision;
          }
          marker = page.IsTruncated ? page.Marker : undefined;
        } while (marker);
      }
      return decisions;
    },
    async dryRunDescribeSubnets(target) {
      try {
        await ec2(target).send(new DescribeSubnetsCommand({ DryRun: true }));
        return true;
      } catch (error) {
        const name = (error as { name?: string } | null)?.name;
        if (name === 'DryRunOperation') return true;
        if (name === 'UnauthorizedOperation') return false;
        throw error;
      }
    },
  };
}
