/**
 * Parses the text after `/eks-upgrade` into a command, or says precisely what is wrong with it. Pure and
 * synchronous (it runs before the ack). It checks the grammar only; whether the cluster exists and who may use it
 * is the router's business.
 */

import { formatMinor, parseMinor } from '../../src/domain/minor-version.js';
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
  /** rollout: one entry per wave (its globs, space-separated), --soak and --max-parallel as typed, and the rollout id. */
  waves?: string[];
  soak?: string;
  maxParallel?: string;
  rolloutId?: string;
  /** rehearse: how gates are answered. */
  answers?: 'continue' | 'remedy' | 'stop';
  /** plan --rollback: the plan of rolling back one minor. */
  rollback?: boolean;
  /** Words after the subcommand, Slack escapes undone, flags still in place (CommandContext.args). */
  args: string[];
}

export type ParseResult =
  | { ok: true; command: ParsedCommand }
  | { ok: false; problem: string; subcommand?: Subcommand };

type Flag = '--to' | '--dry-run' | '--all' | '--waves' | '--soak' | '--max-parallel' | '--answers' | '--rollback';
const FLAGS_WITH_VALUE = new Set<Flag>(['--to', '--soak', '--max-parallel', '--answers']);
const KNOWN_FLAGS = new Set<string>(['--to', '--dry-run', '--all', '--waves', '--soak', '--max-parallel', '--answers', '--rollback']);

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
  digest: { flags: [], target: 'none', targetName: 'nothing' },
  rollout: { flags: ['--to', '--waves', '--soak', '--max-parallel'], target: 'optional', targetName: 'action (continue, pause, resume or abort) and rollout id' },
  rehearse: { flags: ['--to', '--answers'], target: 'required', targetName: 'cluster', requiredFlags: ['--to'] },
  doctor: { flags: [], target: 'none', targetName: 'nothing' },
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
  const waves: string[] = [];
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
    if (known === '--waves') {
      // Each following word up to the next option is one wave: its globs, comma-separated or quoted together.
      while (args[index + 1] !== undefined && !args[index + 1].startsWith('--')) waves.push(args[++index].replace(/,/g, ' ').trim());
      if (waves.length === 0) return fail("`--waves` needs one argument per wave, like `--waves 'dev-*' 'staging-*' 'prod-*'`.");
      seen.set(known, true);
      continue;
    }
    if (FLAGS_WITH_VALUE.has(known)) {
      const value = inlineValue ?? args[index + 1];
      if (value === undefined || value === '' || (inlineValue === undefined && value.startsWith('--'))) {
        if (known === '--soak') return fail('`--soak` needs a duration, like `--soak 24h` or `--soak 30m`.');
        if (known === '--max-parallel') return fail('`--max-parallel` needs a number of clusters, like `--max-parallel 3`.');
        return fail(known === '--answers' ? '`--answers` needs one of `continue`, `remedy`, `stop`.' : `\`${flag}\` needs a version, like \`${flag} 1.31\`.`);
      }
      if (inlineValue === undefined) index++;
      seen.set(known, value);
    } else {
      if (inlineValue !== undefined) return fail(`\`${flag}\` takes no value.`);
      seen.set(known, true);
    }
  }

  if (grammar.target === 'none' && positionals.length > 0) return fail(`Unexpected ${quoteInput(positionals[0])}: \`${subcommand}\` takes no argument.`);
  if (subcommand === 'rollout') return parseRollout(positionals, seen, waves, args, fail);
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
  const answers = seen.get('--answers');
  if (typeof answers === 'string' && !['continue', 'remedy', 'stop'].includes(answers)) return fail(`${quoteInput(answers)} is not a way to answer gates; use \`--answers continue\`, \`remedy\` or \`stop\`.`);
  return {
    ok: true,
    command: {
      subcommand,
      target: subcommand === 'help' ? target?.toLowerCase() : target,
      to,
      ...(typeof answers === 'string' ? { answers: answers as ParsedCommand['answers'] } : {}),
      dryRun: seen.has('--dry-run'),
      all: seen.has('--all'),
      ...(seen.has('--rollback') ? { rollback: true } : {}),
      args,
    },
  };
}

const ROLLOUT_ACTIONS = ['continue', 'pause', 'resume', 'abort'];

/** `rollout --to <minor> --waves <globs>… [--soak 24h] [--max-parallel 3]`, or `rollout <action> <rollout-id>`. */
function parseRollout(positionals: string[], seen: Map<Flag, string | true>, waves: string[], args: string[], fail: (problem: string) => ParseResult): ParseResult {
  const base = { subcommand: 'rollout' as const, dryRun: false, all: false, args };
  if (positionals.length > 0) {
    const [action, id, extra] = positionals;
    if (!ROLLOUT_ACTIONS.includes(action.toLowerCase())) return fail(`${quoteInput(action)} is not a rollout action; use ${ROLLOUT_ACTIONS.map((a) => `\`${a}\``).join(', ')} with a rollout id, or start one with \`--to\` and \`--waves\`.`);
    if (id === undefined) return fail(`\`rollout ${action}\` needs the rollout id (shown in the rollout's thread).`);
    if (extra !== undefined || seen.size > 0) return fail(`\`rollout ${action}\` takes only the rollout id.`);
    return { ok: true, command: { ...base, target: action.toLowerCase(), rolloutId: id } };
  }
  if (!seen.has('--to')) return fail('`rollout` needs `--to &lt;minor&gt;`, the version every cluster goes to (e.g. `--to 1.31`).');
  if (!seen.has('--waves')) return fail("`rollout` needs `--waves`, one argument per wave, like `--waves 'dev-*' 'staging-*' 'prod-*'`.");
  const problem = versionProblem(String(seen.get('--to')));
  if (problem) return fail(problem);
  const soak = seen.get('--soak') as string | undefined;
  if (soak !== undefined && parseDuration(soak) === undefined) return fail(`${quoteInput(soak)} is not a soak time; give one like \`24h\`, \`90m\` or \`2d\` (at most 30 days).`);
  const maxParallel = seen.get('--max-parallel') as string | undefined;
  if (maxParallel !== undefined && !/^([1-9]|[1-4]\d|50)$/.test(maxParallel)) return fail(`${quoteInput(maxParallel)} is not a number of clusters from 1 to 50 for \`--max-parallel\`.`);
  return { ok: true, command: { ...base, to: formatMinor(parseMinor(String(seen.get('--to')))!), waves, soak, maxParallel } };
}

/** "24h", "90m", "2d", "0m" → milliseconds (at most 30 days); undefined when not a duration. */
export function parseDuration(text: string): number | undefined {
  const match = /^(\d{1,4})(m|min|h|d)$/.exec(text.trim().toLowerCase());
  if (!match) return undefined;
  const ms = Number(match[1]) * { m: 60_000, min: 60_000, h: 3600_000, d: 24 * 3600_000 }[match[2] as 'm' | 'min' | 'h' | 'd'];
  return ms <= 30 * 24 * 3600_000 ? ms : undefined;
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
  // The first of the nearest, in SUBCOMMANDS' order.
  let closest: Subcommand | undefined;
  let nearest = 3;
  for (const name of SUBCOMMANDS) {
    if (Math.abs(word.length - name.length) >= nearest) continue; // the distance is at least the lengths' difference
    const distance = editDistance(word, name);
    if (distance < nearest) {
      closest = name;
      nearest = distance;
    }
  }
  return closest;
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
