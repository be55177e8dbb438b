import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { SUBCOMMANDS } from '../../commands/routing/command-usage.js';
import { neededBotScopes, SLACK_METHOD_SCOPES } from '../../src/slack/slack-method-scopes.js';

/**
 * manifest.yml asks for exactly the scopes the code needs: the Slack Web API methods are found in the product's
 * sources (client.<family>.<method>( calls, filesUploadV2 = files.getUploadURLExternal + completeUploadExternal), each
 * must be in src/slack/slack-method-scopes.ts, and the manifest's bot scopes are that table's scopes. Its
 * usage_hint names every subcommand.
 */
const SOURCES = ['src', 'commands', 'jobs'];

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return path === 'src/sim' ? [] : files(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

function methodsCalled(): string[] {
  const methods = new Set<string>();
  for (const file of SOURCES.flatMap(files)) {
    const source = readFileSync(file, 'utf8');
    for (const [, family, method] of source.matchAll(/\bclient\.(chat|conversations|usergroups|users|files|views|auth|reactions|pins|team)\.([a-zA-Z.]+)\(/g)) methods.add(`${family}.${method}`);
    if (/\bfilesUploadV2\(/.test(source)) methods.add('files.getUploadURLExternal').add('files.completeUploadExternal');
  }
  return [...methods].sort();
}

describe('manifest.yml', () => {
  const manifest = parse(readFileSync('manifest.yml', 'utf8'));

  it('the scope table covers exactly the Slack methods the code calls', () => {
    const called = methodsCalled();
    expect(called).toContain('chat.postMessage'); // the search itself works
    expect(called).toEqual(Object.keys(SLACK_METHOD_SCOPES).sort());
  });

  it('asks for exactly the scopes those methods need, users:read and commands', () => {
    expect([...manifest.oauth_config.scopes.bot].sort()).toEqual(neededBotScopes());
    expect(manifest.oauth_config.scopes.bot).toContain('im:history');
    expect(manifest.oauth_config.scopes.bot).not.toContain('reactions:write');
  });

  it('names every subcommand in usage_hint', () => {
    const hint: string = manifest.features.slash_commands[0].usage_hint;
    for (const subcommand of SUBCOMMANDS) expect(hint).toMatch(new RegExp(`(^|[ |])${subcommand}\\b`));
  });
});
