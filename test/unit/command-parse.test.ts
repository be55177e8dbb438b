import { describe, expect, it } from 'vitest';
import { parseCommand } from '../../commands/routing/parse-command.js';
import { tokenizeCommand, unescapeSlackText } from '../../commands/routing/tokenize-command.js';

describe('parseCommand: accepted commands', () => {
  const cases: Array<[string, Record<string, unknown>]> = [
    ['', { subcommand: 'help' }],
    ['help', { subcommand: 'help' }],
    ['help start', { subcommand: 'help', target: 'start' }],
    ['HELP Start', { subcommand: 'help', target: 'start' }],
    ['start --help', { subcommand: 'help', target: 'start' }],
    ['status', { subcommand: 'status', target: undefined, all: false }],
    ['status demo', { subcommand: 'status', target: 'demo' }],
    ['status --all', { subcommand: 'status', all: true }],
    ['  status   demo  ', { subcommand: 'status', target: 'demo' }],
    ['plan demo', { subcommand: 'plan', target: 'demo', to: undefined }],
    ['plan demo --to 1.31', { subcommand: 'plan', target: 'demo', to: '1.31' }],
    ['start demo --to 1.31', { subcommand: 'start', target: 'demo', to: '1.31', dryRun: false }],
    ['start demo --to v1.31', { subcommand: 'start', to: '1.31' }],
    ['start demo --to=1.31 --dry-run', { subcommand: 'start', to: '1.31', dryRun: true }],
    ['start --to 1.31 demo', { subcommand: 'start', target: 'demo', to: '1.31' }],
    ['start "demo" --to "1.31"', { subcommand: 'start', target: 'demo', to: '1.31' }],
    ['start \u201cdemo\u201d \u2014to 1.31', { subcommand: 'start', target: 'demo', to: '1.31' }],
    ['start demo \u2013to 1.31 \u2014dry-run', { subcommand: 'start', to: '1.31', dryRun: true }],
    ['start <#C0DEMO|demo> --to 1.31', { subcommand: 'start', target: 'demo' }],
    ['jobs', { subcommand: 'jobs', target: undefined }],
    ['jobs demo', { subcommand: 'jobs', target: 'demo' }],
    ['pause demo', { subcommand: 'pause', target: 'demo' }],
    ['resume job-12', { subcommand: 'resume', target: 'job-12' }],
    ['abort 8f2c-41', { subcommand: 'abort', target: '8f2c-41' }],
  ];
  it.each(cases)('%j', (text, expected) => {
    const result = parseCommand(text);
    expect(result.ok, JSON.stringify(result)).toBe(true);
    if (result.ok) expect(result.command).toMatchObject(expected);
  });

  it('keeps the words after the subcommand as args, flags in place', () => {
    const result = parseCommand('start demo --to 1.31 --dry-run');
    expect(result.ok && result.command.args).toEqual(['demo', '--to', '1.31', '--dry-run']);
  });
});

describe('parseCommand: refused commands say what is wrong', () => {
  it('guesses no subcommand for a word far from every one, however long', () => {
    for (const word of ['frobnicate', 'x'.repeat(4_000)]) {
      const result = parseCommand(`${word} demo`);
      expect(result.ok).toBe(false);
      expect(!result.ok && result.problem).toMatch(/is not a subcommand of \/eks-upgrade\.$/);
    }
  });


  const cases: Array<[string, RegExp, string | undefined]> = [
    ['deploy demo', /`deploy` is not a subcommand/, undefined],
    ['stat demo', /Did you mean `status`\?/, undefined],
    ['stauts demo', /Did you mean `status`\?/, undefined],
    ['rollbak demo', /Did you mean `rollback`\?/, undefined],
    ['strat demo --to 1.31', /Did you mean `start`\?/, undefined],
    ['start', /`start` needs a cluster/, 'start'],
    ['start demo', /needs `--to &lt;minor&gt;`/, 'start'],
    ['start demo --to', /`--to` needs a version/, 'start'],
    ['start demo --to --dry-run', /`--to` needs a version/, 'start'],
    ['start demo --to 1.3x', /`1\.3x` is not a Kubernetes minor version/, 'start'],
    ['start demo --to latest', /`latest` is not a Kubernetes minor version/, 'start'],
    ['start demo --to 2', /`2` is not a Kubernetes minor version/, 'start'],
    ['start demo --to 1.31.2', /patch release.*use `1\.31`/, 'start'],
    ['start demo --to 1.31 --force', /Unknown option `--force`/, 'start'],
    ['start demo --to 1.31 --to 1.32', /`--to` is given twice/, 'start'],
    ['start demo prod --to 1.31', /Unexpected `prod`/, 'start'],
    ['start demo --to 1.31 --all', /`--all` does not apply to `start`/, 'start'],
    ['start demo --to 1.31 --dry-run=yes', /`--dry-run` takes no value/, 'start'],
    ['status demo --all', /either a cluster or `--all`/, 'status'],
    ['status demo --to 1.31', /`--to` does not apply to `status`/, 'status'],
    ['plan', /`plan` needs a cluster/, 'plan'],
    ['plan demo --to next', /`next` is not a Kubernetes minor version/, 'plan'],
    ['jobs demo --dry-run', /`--dry-run` does not apply to `jobs`/, 'jobs'],
    ['pause', /`pause` needs a job id or cluster/, 'pause'],
    ['abort demo extra', /Unexpected `extra`/, 'abort'],
    ['help deploy', /`deploy` is not a subcommand/, 'help'],
    ['start "demo --to 1.31', /quote is not closed/, undefined],
  ];
  it.each(cases)('%j', (text, problem, subcommand) => {
    const result = parseCommand(text);
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.problem).toMatch(problem);
      expect(result.subcommand).toBe(subcommand);
    }
  });

  it('never echoes a backtick that would break the code span', () => {
    const result = parseCommand('de`ploy');
    expect(!result.ok && result.problem).toContain("`de'ploy`");
  });
});

describe('tokenizer and Slack escapes', () => {
  it('undoes the escapes Slack applies with should_escape', () => {
    expect(unescapeSlackText('<@U0APP|alice> <#C0DEMO|demo> <!subteam^S0ONCALL|@oncall> <http://x.io|x.io> a &amp; b &lt;c&gt;')).toBe(
      'U0APP demo S0ONCALL x.io a & b <c>',
    );
    expect(unescapeSlackText('<@U0APP> <#C0DEMO>')).toBe('U0APP C0DEMO');
  });

  it('groups quoted words and keeps empty quotes as a word', () => {
    expect(tokenizeCommand(`a "b c" 'd e' ""`)).toEqual({ ok: true, words: ['a', 'b c', 'd e', ''] });
  });
});
