/**
 * Which clusters a CLI command is about, in which region and with which clusters.yaml policy. The clusters file is
 * optional for the terminal: `--clusters-file` (or CLUSTERS_FILE) must exist when given; ./clusters.yaml is read
 * when present. A cluster found in the file uses its region and role; any other needs --region or AWS_REGION.
 */

import { existsSync } from 'node:fs';
import { findCluster, loadClustersConfig, type ClusterConfig, type ClustersConfig } from '../config/clusters-config.js';
import type { CliCommand } from './parse-cli-args.js';
import { CliUsageError } from './parse-cli-args.js';

export interface CliTarget {
  name: string;
  region: string;
  roleArn?: string;
  config?: ClusterConfig;
}

export async function loadCliConfig(command: CliCommand, env: NodeJS.ProcessEnv, cwdExists: (path: string) => boolean = existsSync): Promise<ClustersConfig | undefined> {
  const explicit = command.clustersFile ?? env.CLUSTERS_FILE;
  const from = command.clustersFile ? `--clusters-file ${command.clustersFile}` : `CLUSTERS_FILE=${explicit}`;
  if (explicit) return loadClustersConfig(explicit, `pass --clusters-file <path> or set CLUSTERS_FILE to the file's path (this one came from ${from})`);
  return cwdExists('clusters.yaml') ? loadClustersConfig('clusters.yaml') : undefined;
}

export function regionFor(command: CliCommand, env: NodeJS.ProcessEnv): string | undefined {
  return command.region ?? env.AWS_REGION ?? env.AWS_DEFAULT_REGION;
}

export function resolveNamedTarget(command: CliCommand, config: ClustersConfig | undefined, env: NodeJS.ProcessEnv): CliTarget {
  const name = command.cluster!;
  const configured = config ? findCluster(config, name) : undefined;
  if (configured) return { name, region: configured.region, roleArn: configured.roleArn, config: configured };
  const region = regionFor(command, env);
  if (!region) {
    throw new CliUsageError(
      `${name} is not in ${config ? 'the clusters file' : 'any clusters file'}; give its region with --region (or AWS_REGION).`,
    );
  }
  return { name, region };
}
