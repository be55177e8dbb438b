import type { AwsCredentialIdentityProvider } from '@smithy/types';
import type { GuardConfig } from '../config/guards-config.js';
import type { GuardReader } from '../ports/guards/guard-port.js';
import type { CloudWatchGuardReader } from '../aws/cloudwatch-guard-reader.js';
import { readAlertmanagerGuard } from './alertmanager-guard-reader.js';
import { prometheusHistory, readPrometheusGuard } from './prometheus-guard-reader.js';

/**
 * The GuardReader the engine uses: each guard read from its own source (src/guards/ for the HTTP ones, the
 * CloudWatch adapter in src/aws/), wired once in src/start-bot.ts. A reader never throws: whatever goes wrong is a
 * reading of kind 'error' with its "cannot read guard …" sentence.
 */
export interface GuardReaderDeps {
  cloudWatch: CloudWatchGuardReader;
  /** SigV4 credentials for Amazon Managed Prometheus: the bot's chain for the cluster (its roleArn, if any). */
  credentialsFor(target: { region: string; roleArn?: string }): AwsCredentialIdentityProvider;
}

type Of<K extends GuardConfig['source']['kind']> = GuardConfig & { source: Extract<GuardConfig['source'], { kind: K }> };

export function createGuardReader(deps: GuardReaderDeps): GuardReader {
  return {
    async read(guard, cluster) {
      try {
        if (guard.source.kind === 'prometheus') return await readPrometheusGuard(guard as Of<'prometheus'>, cluster, deps);
        if (guard.source.kind === 'alertmanager') return await readAlertmanagerGuard(guard as Of<'alertmanager'>);
        return await deps.cloudWatch.read(guard as Of<'cloudwatch'>, cluster);
      } catch (error) {
        return { kind: 'error', reason: `cannot read guard ${guard.name}: ${error instanceof Error ? error.message : String(error)}` };
      }
    },
    async history(guard, cluster, fromMs, toMs, stepMs) {
      try {
        if (guard.source.kind === 'prometheus') return await prometheusHistory(guard as Of<'prometheus'>, cluster, deps, toMs - fromMs, stepMs);
        if (guard.source.kind === 'cloudwatch') return await deps.cloudWatch.history(guard as Of<'cloudwatch'>, cluster, fromMs, toMs, stepMs);
        return undefined;
      } catch {
        return undefined;
      }
    },
  };
}
