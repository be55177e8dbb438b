import { AssumeRoleCommand, STSClient } from '@aws-sdk/client-sts';
import { WebClient } from '@slack/web-api';
import { afterEach, describe, expect, it } from 'vitest';
import { loadIamPolicyFile, loadRbacFile } from '@eks-upgrade-bot/sim';
import { createAwsProbePort } from '../../src/aws/doctor-sdk-adapter.js';
import { createEksPortFactory } from '../../src/aws/eks-sdk-adapter.js';
import { createSsmPortFactory } from '../../src/aws/ssm-sdk-adapter.js';
import { parseClustersConfig } from '../../src/config/clusters-config.js';
import { readClusterRoleRules } from '../../src/doctor/cluster-role-file.js';
import { runDoctor } from '../../src/doctor/run-doctor.js';
import { createKubePortFactory } from '../../src/kube/client-node-adapter.js';
import { redisUrl } from '../support/redis-url.js';
import { BOT_TOKEN, startSlackHarness, type SlackHarness } from '../support/slack-app-harness.js';
import { policyWithout } from '../support/policy-without.js';
import { simClientConfig, useSim } from '@eks-upgrade-bot/sim/kit';

/**
 * `/eks-upgrade doctor` in Slack: an approver gets every check as one ephemeral answer, the missing IAM action named
 * with its policy line; anyone else is refused before anything is read.
 */
const sim = useSim();
let harness: SlackHarness | undefined;
afterEach(async () => harness?.close());
const CONFIG = parseClustersConfig({ clusters: [{ name: 'demo', region: 'us-west-2', channels: ['C0DEMO'], requesters: ['U0REQ'], approvers: ['U0APP'] }] });

describe('/eks-upgrade doctor', () => {
  it('answers an approver with one line per check, and refuses a requester', async () => {
    const s = await sim('demo', { iamPolicy: policyWithout(loadIamPolicyFile('deploy/iam/permissions-policy.json'), 'eks:UpdateAddon'), rbac: { objects: loadRbacFile('deploy/rbac/cluster-role.yaml') } });
    const assumed = await new STSClient(simClientConfig(s)).send(new AssumeRoleCommand({ RoleArn: 'arn:aws:iam::111122223333:role/eks-upgrade-bot', RoleSessionName: 'bot' }));
    const credentials = { accessKeyId: assumed.Credentials!.AccessKeyId!, secretAccessKey: assumed.Credentials!.SecretAccessKey!, sessionToken: assumed.Credentials!.SessionToken! };
    const options = { endpoint: s.url, credentials, maxAttempts: 1 };
    const eks = createEksPortFactory(options);
    let ran = 0;
    harness = await startSlackHarness({
      config: CONFIG,
      doctor: () => {
        ran += 1;
        return runDoctor({
          config: CONFIG, aws: createAwsProbePort(options), eks, ssm: createSsmPortFactory(options), kube: createKubePortFactory({ eks, credentials }),
          rules: readClusterRoleRules('deploy/rbac/cluster-role.yaml'), slack: { client: new WebClient(BOT_TOKEN, { slackApiUrl: harness!.fake.apiUrl }) }, redisUrl,
        });
      },
    });
    await harness.fake.sendSlashCommand({ text: 'doctor', userId: 'U0REQ', channelId: 'C0DEMO' });
    const [refusal] = await harness.fake.waitFor((fake) => fake.ephemerals('U0REQ').length > 0 && fake.ephemerals('U0REQ'));
    expect(refusal.text).toContain('Only approvers');
    expect(ran).toBe(0);

    await harness.fake.sendSlashCommand({ text: 'doctor', userId: 'U0APP', channelId: 'C0DEMO' });
    const [answer] = await harness.fake.waitFor((fake) => fake.ephemerals('U0APP').length > 0 && fake.ephemerals('U0APP'), { timeoutMs: 30_000 });
    expect(answer.text).toContain('✘ aws.permissions: arn:aws:iam::111122223333:role/eks-upgrade-bot lacks eks:UpdateAddon');
    expect(answer.text).toContain('fix: add "eks:UpdateAddon" to the Action list of statement EksAddons in deploy/iam/permissions-policy.json');
    expect(answer.text).toContain('✔ cluster.demo.rbac');
    expect(harness.fake.messages()).toEqual([]);
  });
});
