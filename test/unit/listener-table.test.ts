import type { App } from '@slack/bolt';
import { describe, expect, it } from 'vitest';
import { createListenerTable } from '../../src/slack/actions/listener-table.js';

/** Bolt's App as far as the table uses it: what it registers, kept to be called as Bolt would. */
function boltApp() {
  const registered: Array<{ kind: 'action' | 'view'; constraint: unknown; listener: (args: unknown) => Promise<void> }> = [];
  const app = {
    action: (constraint: unknown, listener: (args: unknown) => Promise<void>) => registered.push({ kind: 'action', constraint, listener }),
    view: (constraint: unknown, listener: (args: unknown) => Promise<void>) => registered.push({ kind: 'view', constraint, listener }),
  } as unknown as App;
  const click = (actionId: string) => registered.find((r) => r.kind === 'action')!.listener({ action: { action_id: actionId } });
  const submit = (callbackId: string) => registered.find((r) => r.kind === 'view')!.listener({ view: { callback_id: callbackId } });
  return { app, registered, click, submit };
}

describe('the listener table', () => {
  it('gives Bolt one action listener and one view listener, however many buttons and modals there are', () => {
    const bolt = boltApp();
    const table = createListenerTable(bolt.app);
    for (let i = 0; i < 20; i++) table.app.action(`button-${i}`, async () => undefined);
    table.app.view('force-reason', async () => undefined);
    table.install();
    expect(bolt.registered.map((r) => r.kind)).toEqual(['action', 'view']);
    expect(bolt.registered[1].constraint).toEqual({ callback_id: /[\s\S]*/, type: 'view_submission' });
  });

  it('runs every listener whose id matches, as Bolt does (a string exactly, a RegExp by match), and no other', async () => {
    const bolt = boltApp();
    const table = createListenerTable(bolt.app);
    const ran: string[] = [];
    table.app.action('gate-continue', async () => void ran.push('exact'));
    table.app.action(/^gate-/, async () => void ran.push('pattern'));
    table.app.action('gate-abort', async () => void ran.push('other'));
    table.app.view('gate-continue', async () => void ran.push('a view'));
    table.install();
    await bolt.click('gate-continue');
    expect(ran).toEqual(['exact', 'pattern']);
    await bolt.submit('gate-continue');
    expect(ran).toEqual(['exact', 'pattern', 'a view']);
  });

  it('knows the ids its listeners answer, not the fallbacks', () => {
    const table = createListenerTable(boltApp().app);
    table.app.action(/^waive:/, async () => undefined);
    table.fallbacks.action(/[\s\S]*/, async () => undefined);
    expect(table.isKnownAction('waive:EKS-001')).toBe(true);
    expect(table.isKnownAction('renamed-in-an-older-version')).toBe(false);
    expect(table.isKnownView('force-reason')).toBe(false);
  });

  it("passes a listener's failure to Bolt as it is, several together, after every listener has run", async () => {
    const bolt = boltApp();
    const table = createListenerTable(bolt.app);
    const ran: string[] = [];
    table.app.action('pause', async () => {
      throw new Error('Redis is unreachable');
    });
    table.app.action(/pause/, async () => void ran.push('second'));
    table.app.action('abort', async () => {
      throw new Error('one');
    });
    table.app.action(/abort/, async () => {
      throw new Error('two');
    });
    table.install();
    await expect(bolt.click('pause')).rejects.toThrow('Redis is unreachable');
    expect(ran).toEqual(['second']);
    await expect(bolt.click('abort')).rejects.toBeInstanceOf(AggregateError);
  });
});
