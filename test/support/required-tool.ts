import { spawnSync } from 'node:child_process';

/**
 * Command-line tools some tests drive as an operator would (kubectl, the aws CLI). On a laptop without one, the
 * tests that need it are skipped; under CI=true they are not — they run and fail with a sentence naming the missing
 * tool and how to get it, so a CI machine that lost a tool cannot report those tests as passed by skipping them.
 * `.ci/run` installs what Debian packages.
 *
 *   describe.skipIf(skipWithout(KUBECTL))('kubectl against …', () => {
 *     beforeEach(() => requireTool(KUBECTL));
 */
export interface Tool {
  command: string;
  versionArgs: string[];
  /** How to get it, for the failure message. */
  install: string;
}

export const KUBECTL: Tool = {
  command: 'kubectl',
  versionArgs: ['version', '--client'],
  // Debian's only kubectl is kubernetes-client 1.20, outside kubectl's ±1 minor skew with the simulated 1.30+ apiserver.
  install:
    'install kubectl 1.31–1.33 from the Kubernetes package repository (https://kubernetes.io/docs/tasks/tools/install-kubectl-linux/); ' +
    "Debian's own kubernetes-client package is kubectl 1.20, too old for the simulated 1.30+ apiserver",
};

export const AWS_CLI: Tool = {
  command: 'aws',
  versionArgs: ['--version'],
  install: 'apt-get install -y awscli (.ci/run does), or pip install awscli',
};

export const onCi = (): boolean => /^(1|true)$/i.test(process.env.CI ?? '');

const found = new Map<string, boolean>();
export function hasTool(tool: Tool): boolean {
  let has = found.get(tool.command);
  if (has === undefined) {
    has = spawnSync(tool.command, tool.versionArgs, { stdio: 'ignore' }).status === 0;
    found.set(tool.command, has);
  }
  return has;
}

/** Whether to skip the tests that need `tool`: only when it is missing and this is not CI. */
export function skipWithout(tool: Tool): boolean {
  return !hasTool(tool) && !onCi();
}

/** Throws the sentence for a missing tool; call it first (or in beforeEach) where a test needs the tool. */
export function requireTool(tool: Tool): void {
  if (hasTool(tool)) return;
  throw new Error(`${tool.command} is not installed (\`${[tool.command, ...tool.versionArgs].join(' ')}\` failed), and under CI=true a test that needs it fails instead of skipping: ${tool.install}.`);
}
