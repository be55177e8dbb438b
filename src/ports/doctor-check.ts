/**
 * One line of `doctor`: a check that passed (ok true), failed (false: `fix` says what to add or change) or could not
 * be made (null: `detail` says why). Permission checks carry `missing`, the exact IAM actions, Kubernetes
 * `verb resource` pairs or Slack scopes lacking. Start-up failures are the same checks, in the same words.
 */
export type DoctorArea = 'config' | 'aws' | 'cluster' | 'slack' | 'redis';

export interface DoctorCheck {
  id: string;
  area: DoctorArea;
  ok: boolean | null;
  detail: string;
  fix: string | null;
  missing?: string[];
}

export const passed = (area: DoctorArea, id: string, detail: string): DoctorCheck => ({ id, area, ok: true, detail, fix: null });
export const failed = (area: DoctorArea, id: string, detail: string, fix: string, missing?: string[]): DoctorCheck => ({ id, area, ok: false, detail, fix, ...(missing ? { missing } : {}) });
export const notChecked = (area: DoctorArea, id: string, why: string): DoctorCheck => ({ id, area, ok: null, detail: why, fix: null });

/** Identity and permission probes `doctor` makes on AWS: none of them changes anything. */
export interface AwsIdentity {
  arn: string;
  account: string;
}

export type SimulatedDecision = 'allowed' | 'implicitDeny' | 'explicitDeny';

export interface SimulationRequest {
  action: string;
  resource: string;
  context?: Record<string, string>;
}

export interface AwsProbePort {
  /** sts:GetCallerIdentity with the credentials used for this target (its roleArn assumed, as the bot does). */
  callerIdentity(target: { region: string; roleArn?: string }): Promise<AwsIdentity>;
  /** iam:SimulatePrincipalPolicy for a role or user ARN: each action's decision. */
  simulate(policySourceArn: string, requests: SimulationRequest[]): Promise<Record<string, SimulatedDecision>>;
  /** ec2:DescribeSubnets with DryRun: true when allowed (DryRunOperation), false when UnauthorizedOperation. */
  dryRunDescribeSubnets(target: { region: string; roleArn?: string }): Promise<boolean>;
}
