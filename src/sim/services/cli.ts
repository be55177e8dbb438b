/**
 * `npm run sim -- --scenario demo --port 4566 --speed 60 [--kubeconfig /tmp/sim.kubeconfig] [--clusters N]`:
 * runs the simulator standalone, prints how to point the aws CLI, kubectl and the bot at it, and stops cleanly on
 * SIGINT/SIGTERM.
 */

import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { scenarioNames, ScenarioError } from '../scenario/load-scenario.js';
import { loadIamPolicyFile, loadRbacFile, loadTrustPolicyFile } from '../access-files.js';
import { parseRelaxations, RELAXATIONS } from '../strictness.js';
import { startSimulator } from '../sim-server.js';
import { parseFaultFlags } from '../aws/parse-fault-flags.js';

const USAGE = `Usage: npm run sim -- --scenario <name> [--port 4566] [--host 127.0.0.1] [--speed 60] [--kubeconfig <file>] [--clusters N [--fleet-version 1.32]] [--nodes N --pools P --mng-nodes M] [--throttle-rate R] [--error-rate R] [--drop-answers Op=N,…] [--latency-ms N] [--quiet]

  --scenario    one of: ${scenarioNames().join(', ')} (or a path to a scenario YAML file)
  --port        port to listen on (default 4566; 0 picks a free one)
  --host        address to bind (default 127.0.0.1)
  --speed       simulated seconds per real second (default 1; 60 turns a 10-minute update into 10 s)
  --kubeconfig  write a kubeconfig with one context per cluster to this file
  --public-url  URL clients use to reach the simulator if not http://<host>:<port> (e.g. http://sim:4566 in compose)
  --clusters    number of clusters for --scenario fleet (default 20), or of identical ones for --scenario scale (default 1)
  --fleet-version  for --scenario fleet: every cluster healthy at this version (default: mixed versions, some broken)
  --nodes       Karpenter nodes in all for --scenario scale (default 500)
  --pools       Karpenter NodePools sharing them for --scenario scale (default 5)
  --mng-nodes   nodes of an extra managed node group for --scenario scale (default 0: none)
  --latency-ms  added to every AWS and Kubernetes API answer, in real milliseconds
  --throttle-rate  share (0..1) of AWS calls answered as throttled (429 ThrottlingException; EC2 RequestLimitExceeded),
                for all services or per service: eks=0.2,ssm=0.05,ec2=0.1 (also autoscaling, sts, monitoring = CloudWatch)
  --error-rate  share (0..1) of AWS calls answered 500/503, for all services or per service like --throttle-rate
  --drop-answers  UpdateClusterVersion=1,…: that many calls of each operation are carried out, then their answer is lost
  --iam-policy  enforce this IAM policy JSON on every signed AWS call (e.g. deploy/iam/permissions-policy.json)
  --rbac        enforce these ClusterRoles/ClusterRoleBindings on EKS-token requests (e.g. deploy/rbac/cluster-role.yaml)
  --access-entry-group  Kubernetes group EKS gives every AWS identity when --rbac is on (default eks-upgrade-bot)
  --trust-policy  the roles' trust policies: JSON {"<role ARN>": <policy document>, …} (default: every role trusts
                the simulated account's own identities, so existing setups keep working)
  --relax       relax named rules of the real services (all are on by default), comma-separated:
                ${RELAXATIONS.join(', ')}
  --quiet       do not print controller log lines`

function fail(message: string): never {
  process.stderr.write(`sim: ${message}\n\n${USAGE}\n`);
  process.exit(2);
}

function parse() {
  try {
    return parseArgs({
      options: {
        scenario: { type: 'string', short: 's' },
        port: { type: 'string', short: 'p', default: '4566' },
        host: { type: 'string', default: '127.0.0.1' },
        speed: { type: 'string', default: '1' },
        kubeconfig: { type: 'string' },
        'public-url': { type: 'string' },
        clusters: { type: 'string' },
        'fleet-version': { type: 'string' },
        nodes: { type: 'string' },
        pools: { type: 'string' },
        'mng-nodes': { type: 'string' },
        'latency-ms': { type: 'string' },
        'throttle-rate': { type: 'string' },
        'error-rate': { type: 'string' },
        'drop-answers': { type: 'string' },
        'iam-policy': { type: 'string' },
        rbac: { type: 'string' },
        'access-entry-group': { type: 'string', multiple: true },
        'trust-policy': { type: 'string' },
        relax: { type: 'string' },
        quiet: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (error) {
    fail((error as Error).message);
  }
}

async function main(): Promise<void> {
  const args = parse();
  if (args.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  if (!args.scenario) fail('--scenario is required');
  const port = Number(args.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) fail(`--port must be a port number (0–65535), got "${args.port}"`);
  const speed = Number(args.speed);
  if (!(speed > 0) || !Number.isFinite(speed)) fail(`--speed must be a positive number, got "${args.speed}"`);
  const clusters = args.clusters === undefined ? undefined : Number(args.clusters);
  if (clusters !== undefined && (!Number.isInteger(clusters) || clusters < 1)) fail(`--clusters must be a positive integer, got "${args.clusters}"`);
  if (clusters !== undefined && args.scenario !== 'fleet' && args.scenario !== 'scale') fail('--clusters only applies to --scenario fleet or scale');
  if (args['fleet-version'] !== undefined && args.scenario !== 'fleet') fail('--fleet-version only applies to --scenario fleet');
  const scaleFlag = (flag: 'nodes' | 'pools' | 'mng-nodes'): number | undefined => {
    const raw = args[flag];
    if (raw === undefined) return undefined;
    if (args.scenario !== 'scale') fail(`--${flag} only applies to --scenario scale`);
    const value = Number(raw);
    if (!Number.isInteger(value) || value < 0) fail(`--${flag} must be a whole number, got "${raw}"`);
    return value;
  };
  const nodes = scaleFlag('nodes');
  const pools = scaleFlag('pools');
  const mngNodes = scaleFlag('mng-nodes');
  if (args['public-url'] !== undefined && !/^https?:\/\/[^/]+\/?$/.test(args['public-url'])) fail(`--public-url must look like http://host:port, got "${args['public-url']}"`);

  let faults;
  let iamPolicy;
  let rbacObjects;
  let relax;
  let trustPolicies;
  try {
    relax = parseRelaxations(args.relax);
    trustPolicies = args['trust-policy'] ? loadTrustPolicyFile(args['trust-policy']) : undefined;
    faults = parseFaultFlags(args);
    iamPolicy = args['iam-policy'] ? loadIamPolicyFile(args['iam-policy']) : undefined;
    rbacObjects = args.rbac ? loadRbacFile(args.rbac) : undefined;
  } catch (error) {
    fail((error as Error).message);
  }
  let sim;
  try {
    sim = await startSimulator({
      iamPolicy,
      rbac: rbacObjects && { objects: rbacObjects, accessEntryGroups: args['access-entry-group'] },
      scenario: args.scenario,
      port,
      host: args.host,
      speed,
      clusters,
      fleetVersion: args['fleet-version'],
      nodes,
      pools,
      mngNodes,
      publicUrl: args['public-url'],
      faults,
      strictness: { relax },
      trustPolicies,
      log: args.quiet ? undefined : (line) => process.stdout.write(`${JSON.stringify(line)}\n`),
    });
  } catch (error) {
    if (error instanceof ScenarioError) fail(error.message);
    process.stderr.write(`sim: ${(error as Error).message}\n`);
    process.exit(1);
  }
  if (args.kubeconfig) writeFileSync(args.kubeconfig, sim.kubeconfig(), { mode: 0o600 });
  const names = [...sim.world.clusters.keys()];
  const region = sim.world.clusters.get(names[0])?.region ?? 'us-west-2';
  const shown = names.length > 5 ? `${names.slice(0, 5).join(', ')} … (${names.length} in all)` : names.join(', ');
  process.stdout.write(
    [
      `EKS simulator (scenario ${sim.world.scenario.name}, speed ${speed}x) listening on ${sim.url}`,
      `  clusters: ${shown}`,
      '',
      'Point AWS clients at it (any dummy credentials work):',
      `  export AWS_ENDPOINT_URL=${sim.url} AWS_REGION=${region} AWS_ACCESS_KEY_ID=test AWS_SECRET_ACCESS_KEY=test`,
      `  aws --endpoint-url ${sim.url} --region ${region} eks describe-cluster --name ${names[0]}`,
      args.kubeconfig
        ? `  kubectl --kubeconfig ${args.kubeconfig} --context ${names[0]} get nodes -o wide`
        : `  (add --kubeconfig /tmp/sim.kubeconfig for kubectl; each cluster's API is ${sim.url}/k8s/<cluster>)`,
      `Control API: ${sim.url}/_sim/state, /_sim/calls, /_sim/faults. Ctrl-C stops.`,
      '',
    ].join('\n'),
  );

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    process.stdout.write(`sim: ${signal} received, shutting down\n`);
    sim.close().then(
      () => process.exit(0),
      (error: Error) => {
        process.stderr.write(`sim: shutdown failed: ${error.message}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

void main();
