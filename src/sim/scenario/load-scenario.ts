/** Where named scenarios live: src/sim/scenarios/<name>.yaml. */

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
import type { z } from 'zod';
import { generateFleetScenario } from './fleet-scenario.js';
import { generateScaleScenario } from './scale-scenario.js';
import { scenarioSchema, type Scenario } from './scenario-schema.js';

export const SCENARIOS_DIR = fileURLToPath(new URL('../scenarios/', import.meta.url));

export class ScenarioError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ScenarioError';
  }
}

/** Names accepted by --scenario: every YAML file in the scenarios folder, plus the generated `fleet` and `scale`. */
export function scenarioNames(): string[] {
  const files = existsSync(SCENARIOS_DIR) ? readdirSync(SCENARIOS_DIR).filter((f) => f.endsWith('.yaml')) : [];
  return [...files.map((f) => f.slice(0, -'.yaml'.length)), 'fleet', 'scale'].sort();
}

export interface LoadScenarioOptions {
  /** For the `fleet` generator: how many clusters (default 20); for `scale`: how many identical ones (default 1). */
  clusters?: number;
  /** For the `fleet` generator: every cluster healthy at this version (`--fleet-version`; default mixed, some broken). */
  fleetVersion?: string;
  /** For the `scale` generator: Karpenter nodes in all (default 500). */
  nodes?: number;
  /** For the `scale` generator: NodePools sharing them (default 5). */
  pools?: number;
  /** For the `scale` generator: nodes of an extra managed node group (default 0). */
  mngNodes?: number;
}

/**
 * Resolves a scenario given by name, file path, or as an object (tests build their own), and validates it.
 * Errors name the scenario and the offending field, e.g. `scenario demo: clusters.0.version: must be a
 * Kubernetes minor like "1.30"`.
 */
export function loadScenario(scenario: string | object, options: LoadScenarioOptions = {}): Scenario {
  if (typeof scenario !== 'string') return validateScenario(scenario, 'given as an object');
  if (scenario === 'fleet') {
    let generated: Record<string, unknown>;
    try {
      generated = generateFleetScenario(options.clusters ?? 20, { healthyAt: options.fleetVersion });
    } catch (error) {
      throw new ScenarioError((error as Error).message);
    }
    return validateScenario(generated, 'fleet');
  }
  if (scenario === 'scale') {
    let generated: Record<string, unknown>;
    try {
      generated = generateScaleScenario({ nodes: options.nodes, pools: options.pools, mngNodes: options.mngNodes, clusters: options.clusters });
    } catch (error) {
      throw new ScenarioError((error as Error).message);
    }
    return validateScenario(generated, 'scale');
  }
  const path = scenario.endsWith('.yaml') || scenario.includes('/') ? scenario : `${SCENARIOS_DIR}${scenario}.yaml`;
  if (!existsSync(path)) {
    throw new ScenarioError(`unknown scenario "${scenario}": choose one of ${scenarioNames().join(', ')} or give a path to a YAML file`);
  }
  return validateScenario(readScenarioFile(path, scenario, []), scenario);
}

/**
 * Reads a scenario file, resolving `extends: <name>` (the named scenario as the base) and `set:` (a map of
 * dotted paths, e.g. `clusters.0.karpenter.nodePools.0.spec.disruption.budgets`, to the values that replace
 * what is there), so variants state only how they differ.
 */
function readScenarioFile(path: string, label: string, seen: string[]): Record<string, unknown> {
  if (seen.includes(path)) throw new ScenarioError(`scenario ${label}: "extends" loops through ${[...seen, path].join(' → ')}`);
  let raw: unknown;
  try {
    raw = parseYaml(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new ScenarioError(`scenario ${label}: ${path} is not valid YAML: ${(error as Error).message}`, { cause: error });
  }
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw new ScenarioError(`scenario ${label}: ${path} must hold a YAML mapping`);
  const { extends: base, set, ...own } = raw as Record<string, unknown>;
  if (base === undefined) {
    if (set !== undefined) throw new ScenarioError(`scenario ${label}: set: needs extends: <base scenario>`);
    return own;
  }
  if (typeof base !== 'string') throw new ScenarioError(`scenario ${label}: extends: must name a scenario`);
  const basePath = `${SCENARIOS_DIR}${base}.yaml`;
  if (!existsSync(basePath)) throw new ScenarioError(`scenario ${label}: extends: unknown scenario "${base}"`);
  const merged: Record<string, unknown> = { ...readScenarioFile(basePath, label, [...seen, path]), ...own };
  for (const [dotted, value] of Object.entries((set ?? {}) as Record<string, unknown>)) setPath(merged, dotted, value, label);
  return merged;
}

function setPath(target: Record<string, unknown>, dotted: string, value: unknown, label: string): void {
  const keys = dotted.split('.');
  let node: any = target;
  for (const key of keys.slice(0, -1)) {
    if (node?.[key] === undefined || typeof node[key] !== 'object') {
      throw new ScenarioError(`scenario ${label}: set: ${dotted}: nothing at "${key}" in the base scenario`);
    }
    node = node[key];
  }
  node[keys[keys.length - 1]] = value;
}

export function validateScenario(raw: unknown, label: string): Scenario {
  const parsed = scenarioSchema.safeParse(raw);
  if (!parsed.success) throw new ScenarioError(`scenario ${label}: ${describeIssues(parsed.error)}`, { cause: parsed.error });
  const scenario = parsed.data;
  const problems = crossCheck(scenario);
  if (problems.length) throw new ScenarioError(`scenario ${label}: ${problems.join('; ')}`);
  return scenario;
}

function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((issue) => `${issue.path.length ? issue.path.join('.') : '(top level)'}: ${issue.message}`)
    .join('; ');
}

/** Rules zod cannot see field by field: names unique, node group zones among the cluster's subnets. */
function crossCheck(scenario: Scenario): string[] {
  const problems: string[] = [];
  const clusterNames = new Set<string>();
  scenario.clusters.forEach((cluster, i) => {
    if (clusterNames.has(cluster.name)) problems.push(`clusters.${i}.name: duplicate cluster "${cluster.name}"`);
    clusterNames.add(cluster.name);
    const zones = new Set((cluster.vpc?.subnets ?? []).map((s) => s.zone));
    const ngNames = new Set<string>();
    cluster.nodegroups.forEach((ng, j) => {
      if (ngNames.has(ng.name)) problems.push(`clusters.${i}.nodegroups.${j}.name: duplicate node group "${ng.name}"`);
      ngNames.add(ng.name);
      if (ng.scaling.desired < ng.scaling.min || ng.scaling.desired > ng.scaling.max) {
        problems.push(`clusters.${i}.nodegroups.${j}.scaling.desired: must be between min and max`);
      }
      for (const zone of ng.zones ?? []) {
        if (cluster.vpc && !zones.has(zone)) problems.push(`clusters.${i}.nodegroups.${j}.zones: no subnet in ${zone}`);
      }
      if (ng.amiType === 'CUSTOM' && !ng.launchTemplate) {
        problems.push(`clusters.${i}.nodegroups.${j}.launchTemplate: required when amiType is CUSTOM`);
      }
    });
  });
  return problems;
}
