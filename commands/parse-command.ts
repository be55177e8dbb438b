/**
 * Parses the text after `/eks-upgrade` into a command, or says precisely what is wrong with it. Pure and
 * synchronous (it runs before the ack). It checks the grammar only; whether the cluster exists and who may use it
 * is the router's business.
 */

import { formatMinor, parseMinor } from '../src/domain/minor-version.js';
import { COMMAND, SUBCOMMANDS, escapeAngles, isSubcommand, type Subcommand } from './command-usage.js';
import { tokenizeCommand } from './tokenize-command.js';

export interface ParsedCommand {
  subcommand: Subcommand;
  /** The positional argument: a cluster, a job id or cluster (pause/resume/abort), a subcommand (help). */
  target?: string;
  /** --to, normalised to "1.31". */
  to?: string;
  dryRun: boolean;
  all: boolean;
  /** plan --rollback: the plan of rolling back one minor. */
  rollback?: boolean;
  /** Words after the subcommand, Slack escapes undone, flags still in place (CommandContext.args). */
  args: string[];
}

export type ParseResult =
  | { ok: true; command: ParsedCommand }
  | { ok: false; problem: string; subcommand?: Subcommand };

type Flag = '--to' | '--dry-run' | '--all' | '--rollback';
const FLAGS_WITH_VALUE = new Set<Flag>(['--to']);
const KNOWN_FLAGS = new Set<string>(['--to', '--dry-run', '--all', '--rollback']);

interface Grammar {
  flags: Flag[];
  target: 'none' | 'optional' | 'required';
  targetName: string;
  requiredFlags?: Flag[];
}

const GRAMMAR: Record<Subcommand, Grammar> = {
  help: { flags: [], target: 'optional', targetName: 'subcommand' },
  status: { flags: ['--all'], target: 'optional', targetName: 'cluster' },
  plan: { flags: ['--to', '--rollback'], target: 'required', targetName: 'cluster' },
  start: { flags: ['--to', '--dry-run'], target: 'required', targetName: 'cluster', requiredFlags: ['--to'] },
  // --to is what the summary card's Roll back button sends: the minor it offered, checked against the cluster.
  rollback: { flags: ['--to', '--dry-run'], target: 'required', targetName: 'cluster' },
  jobs: { flags: [], target: 'optional', targetName: 'cluster' },
  pause: { flags: [], target: 'required', targetName: 'job id or cluster' },
  resume: { flags: [], target: 'required', targetName: 'job id or cluster' },
  abort: { flags: [], target: 'required', targetName: 'job id or cluster' },
  audit: { flags: [], target: 'required', targetName: 'cluster' },
  waivers: { flags: [], target: 'optional', targetName: 'cluster' },
};

/** Echoes user input inside `code` safely and briefly. */
export function quoteInput(word: string): string {
  const cleaned = word.replace(/`/g, "'");
  return `\`${escapeAngles(cleaned.length > 40 ? `${cleaned.slice(0, 40)}…` : cleaned)}\``;
}

export function parseCommand(text: string): ParseResult {
  const tokens = tokenizeCommand(text);
  if (!tokens.ok) return { ok: false, problem: tokens.problem };
  const [first, ...rest] = tokens.words;
  if (first === undefined) return { ok: true, command: { subcommand: 'help', dryRun: false, all: false, args: [] } };
  const word = first.toLowerCase();
  if (word === '--help' || word === '-h') return { ok: true, command: { subcommand: 'help', dryRun: false, all: false, args: [] } };
  if (!isSubcommand(word)) {
    const guess = closestSubcommand(word);
    const hint = guess ? ` Did you mean \`${guess}\`?` : '';
    return { ok: false, problem: `${quoteInput(first)} is not a subcommand of ${COMMAND}.${hint}` };
  }
  if (rest.some((arg) => arg === '--help' || arg === '-h')) {
    return { ok: true, command: { subcommand: 'help', target: word, dryRun: false, all: false, args: [word] } };
  }
  return parseSubcommandArgs(word, rest);
}

/** Parses the words after a known subcommand (handlers re-read their CommandContext.args with it). */
export function parseSubcommandArgs(subcommand: Subcommand, args: string[]): ParseResult {
  const grammar = GRAMMAR[subcommand];
  const fail = (problem: string): ParseResult => ({ ok: false, problem, subcommand });
  const seen = new Map<Flag, string | true>();
  const positionals: string[] = [];
  for (let index = 0; index < args.length; index++) {
    const arg = args[index];
    if (!arg.startsWith('-') || arg === '-') {
      positionals.push(arg);
      continue;
    }
    const [name, inlineValue] = arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
    const flag = name.toLowerCase();
    if (!KNOWN_FLAGS.has(flag)) return fail(`Unknown option ${quoteInput(name)}.`);
    if (!(grammar.flags as string[]).includes(flag)) return fail(`\`${flag}\` does not apply to \`${subcommand}\`.`);
    const known = flag as Flag;
    if (seen.has(known)) return fail(`\`${flag}\` is given twice.`);
    if (FLAGS_WITH_VALUE.has(known)) {
      const value = inlineValue ?? args[index + 1];
      if (value === undefined || value === '' || (inlineValue === undefined && value.startsWith('--'))) {
        return fail(`\`${flag}\` needs a version, like \`${flag} 1.31\`.`);
      }
      if (inlineValue === undefined) index++;
      seen.set(known, value);
    } else {
      if (inlineValue !== undefined) return fail(`\`${flag}\` takes no value.`);
      seen.set(known, true);
    }
  }

  if (positionals.length > 1) return fail(`Unexpected ${quoteInput(positionals[1])}: \`${subcommand}\` takes one ${grammar.targetName}.`);
  const target = positionals[0];
  if (grammar.target === 'required' && target === undefined) return fail(`\`${subcommand}\` needs a ${grammar.targetName}.`);
  if (subcommand === 'help' && target !== undefined && !isSubcommand(target.toLowerCase())) {
    return fail(`${quoteInput(target)} is not a subcommand; there is help for ${SUBCOMMANDS.map((s) => `\`${s}\``).join(', ')}.`);
  }
  if (subcommand === 'plan' && seen.has('--to') && seen.has('--rollback')) {
    return fail('Give either `--to` (an upgrade) or `--rollback` (one minor back), not both.');
  }
  if (subcommand === 'status' && target !== undefined && seen.has('--all')) {
    return fail('Give either a cluster or `--all`, not both.');
  }
  for (const required of grammar.requiredFlags ?? []) {
    if (!seen.has(required)) return fail(`\`${subcommand}\` needs \`${required} &lt;minor&gt;\`, the version to upgrade to (e.g. \`--to 1.31\`).`);
  }

  let to: string | undefined;
  const rawTo = seen.get('--to');
  if (typeof rawTo === 'string') {
    const problem = versionProblem(rawTo);
    if (problem) return fail(problem);
    to = formatMinor(parseMinor(rawTo)!);
  }
  return {
    ok: true,
    command: {
      subcommand,
      target: subcommand === 'help' ? target?.toLowerCase() : target,
      to,
      dryRun: seen.has('--dry-run'),
      all: seen.has('--all'),
      ...(seen.has('--rollback') ? { rollback: true } : {}),
      args,
    },
  };
}

/** Why a --to value is not a minor like 1.31, in words; undefined when it is one. */
export function versionProblem(value: string): string | undefined {
  if (parseMinor(value)) return undefined;
  if (/^v?\d+\.\d+\.\d+/.test(value)) {
    const [major, minor] = value.replace(/^v/, '').split('.');
    return `${quoteInput(value)} is a patch release; EKS upgrades go by minor version: use \`${major}.${minor}\`.`;
  }
  return `${quoteInput(value)} is not a Kubernetes minor version; give one like \`1.31\`.`;
}

function closestSubcommand(word: string): Subcommand | undefined {
  const byPrefix = SUBCOMMANDS.filter((name) => word.length >= 2 && name.startsWith(word));
  if (byPrefix.length === 1) return byPrefix[0];
  const scored = SUBCOMMANDS.map((name) => ({ name, distance: editDistance(word, name) })).sort((a, b) => a.distance - b.distance);
  return scored[0].distance <= 2 ? scored[0].name : undefined;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length];
}

/** For handlers: their args as a ParsedCommand. The router has parsed them once already, so failing here is a bug. */
export function readArgs(subcommand: Subcommand, args: string[]): ParsedCommand {
  const result = parseSubcommandArgs(subcommand, args);
  if (!result.ok) throw new Error(`${subcommand}: ${result.problem}`);
  return result.command;
}
