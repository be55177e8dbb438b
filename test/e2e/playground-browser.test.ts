import { statSync } from 'node:fs';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Playground } from '../../src/playground/start-playground.js';
import { PLAYGROUND_CHANNEL } from '../../src/playground/playground-people.js';
import { ARTIFACTS, openPlayground, tabTo as tabToIn, type PlaygroundInBrowser } from '../support/playground-browser.js';

/**
 * The playground in a real Chromium: the page a platform engineer opens after `npm run playground`, over the real
 * bot, its worker, the fake Slack and the simulator, used with the keyboard, at a phone's width, and with the
 * cluster panel's controls.
 */
// A safety net for a busy machine (the page answers in a second or two when it is quiet), not a pace.
const STEP_MS = 60_000;

let opened: PlaygroundInBrowser;
let playground: Playground;
let page: Page;

beforeAll(async () => {
  opened = await openPlayground();
  ({ playground, page } = opened);
});

afterEach(() => {
  expect(opened.pageErrors, 'errors thrown by the page').toEqual([]);
});

afterAll(async () => {
  await opened?.close();
});

const tabTo = (selector: string, limit?: number) => tabToIn(page, selector, limit);

/** chat.update of a bot message with its own text and blocks, through the fake Slack's Web API; resolves once the page has redrawn it. */
async function editUnchanged(message: Locator): Promise<void> {
  const ts = await message.getAttribute('data-ts');
  const rev = await message.getAttribute('data-rev');
  const api = async (method: string, body: Record<string, unknown>) => {
    const response = await fetch(`${playground.fake.apiUrl}${method}`, { method: 'POST', headers: { authorization: 'Bearer xoxb-playground-token', 'content-type': 'application/json; charset=utf-8' }, body: JSON.stringify(body) });
    const answer = await response.json() as { ok: boolean; error?: string; messages?: Array<{ ts: string; text: string; blocks?: unknown[] }> };
    expect(answer.error, `${method}`).toBeUndefined();
    return answer;
  };
  const channel = PLAYGROUND_CHANNEL.id;
  const history = await api('conversations.history', { channel, latest: ts, inclusive: true, limit: 1 });
  const card = history.messages?.find((m) => m.ts === ts);
  expect(card, 'the card in conversations.history').toBeDefined();
  await api('chat.update', { channel, ts, text: card!.text, blocks: card!.blocks });
  await expect.poll(() => page.locator(`#channel-messages .message[data-ts="${ts}"]`).getAttribute('data-rev')).not.toBe(rev);
}
const channel = () => page.locator('#channel-messages');
const thread = () => page.locator('#thread-messages');
const statusCard = (): Locator => channel().locator('.message', { hasText: /EKS upgrade · demo 1\.30 → 1\.31/i });

describe('playground in Chromium', () => {
  it('runs an upgrade typed and clicked in the page: refusals for the requester and a bystander, approval by the approver', async () => {
    // Keyboard only: Tab to the user picker (the requester is picked first), then on to the composer.
    await tabTo('#user-picker');
    await expect.poll(() => page.locator('#user-picker').inputValue()).toBe('U0ALICE');
    await tabTo('#composer-input');

    // A mistake gets the bot's own usage help, only for the one who typed it.
    await page.keyboard.type('/eks-upgrade start demo');
    await page.keyboard.press('Enter');
    const help = channel().locator('.message.ephemeral', { hasText: /--to/ });
    await help.waitFor({ timeout: STEP_MS });
    await expect.poll(() => help.innerText()).toMatch(/Only visible to you/);

    await page.keyboard.type('/eks-upgrade start demo --to 1.31');
    await page.keyboard.press('Enter');
    await statusCard().waitFor({ timeout: STEP_MS });

    // The gate is in the card's thread; open it with the keyboard.
    const replies = statusCard().locator('.replies-link');
    await replies.waitFor({ timeout: STEP_MS });
    await replies.focus();
    // The bot edits its card whenever it likes, so an edit may land between the focus and the key: the replies link
    // keeps the focus through it (the page redraws an edited message). Edit the card here, as the bot would.
    // (Once the card waits for approval the bot leaves it alone until the answer, so this edit repeats its latest state.)
    await expect.poll(() => statusCard().innerText(), { timeout: STEP_MS }).toMatch(/Waiting for approval/);
    await editUnchanged(statusCard());
    await page.keyboard.press('Enter');
    const offered = thread().locator('.message', { has: page.locator('button[data-action-id="gate:continue"]') });
    await offered.waitFor({ timeout: STEP_MS });
    // Once answered the card loses its buttons: follow it by its ts from here on.
    const gate = thread().locator(`.message[data-ts="${await offered.getAttribute('data-ts')}"]`);
    await expect.poll(() => gate.innerText()).toMatch(/Upgrade the control plane of demo to 1\.31\?/i);

    // The requester may not approve her own upgrade (two-person rule); someone not in clusters.yaml may not either.
    await gate.getByRole('button', { name: 'Continue' }).click();
    const refusal = thread().locator('.message.ephemeral', { hasText: /demo follows the two-person rule: you started this upgrade, so another approver must answer its gates \(@bob\)/ });
    await refusal.waitFor({ timeout: STEP_MS });
    await page.locator('#user-picker').selectOption('U0CAROL');
    await expect.poll(() => refusal.count()).toBe(0);
    await gate.getByRole('button', { name: 'Continue' }).click();
    await thread().locator('.message.ephemeral', { hasText: /Only the approvers of demo may answer this gate: @bob\./ }).waitFor({ timeout: STEP_MS });
    await expect.poll(() => statusCard().innerText()).toMatch(/Waiting for approval/);
    await page.locator('#user-picker').selectOption('U0ALICE');

    // The approver, picked with the keyboard, does not see the others' refusals, and Continue (Enter) goes through.
    await page.locator('#user-picker').focus();
    await page.keyboard.press('ArrowDown');
    await expect.poll(() => page.locator('#user-picker').inputValue()).toBe('U0BOB');
    await expect.poll(() => page.locator('#user-can').innerText()).toMatch(/approver/);
    await expect.poll(() => thread().locator('.message.ephemeral').count()).toBe(0);
    await gate.getByRole('button', { name: 'Continue' }).focus();
    await page.keyboard.press('Enter');

    await expect.poll(() => gate.innerText(), { timeout: STEP_MS }).toMatch(/Approved by @bob/);
    // The plan's next gate, before the node group rolls: bob answers it as well.
    const nodegroupOffer = thread().locator('.message', { hasText: /Roll node group demo-ng/, has: page.locator('button[data-action-id="gate:continue"]') });
    await nodegroupOffer.waitFor({ timeout: 60_000 });
    const nodegroupGate = thread().locator(`.message[data-ts="${await nodegroupOffer.getAttribute('data-ts')}"]`);
    await nodegroupGate.getByRole('button', { name: 'Continue' }).click();
    await expect.poll(() => nodegroupGate.innerText(), { timeout: STEP_MS }).toMatch(/Approved by @bob/);
    await expect.poll(() => statusCard().innerText(), { timeout: 60_000 }).toMatch(/Succeeded/);
    await expect.poll(() => page.locator('[data-testid="cp-version"]').innerText(), { timeout: STEP_MS }).toBe('1.31');
    await expect.poll(() => page.locator('#cluster-panel').innerText()).toMatch(/2 nodes: 2× 1\.31/);

    const screenshot = join(ARTIFACTS, 'playground-upgrade.png');
    await page.screenshot({ path: screenshot });
    expect(statSync(screenshot).size).toBeGreaterThan(10_000);
  });

  it('stays usable at a phone width of 420 px', async () => {
    await page.setViewportSize({ width: 420, height: 860 });
    // Nothing sticks out sideways: no horizontal scrolling of the page.
    await expect.poll(() => page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(420);
    // The open thread covers the channel, as in Slack's app; closing it brings back the composer and the picker.
    await page.locator('#thread-close').click();
    for (const selector of ['#composer-input', '#user-picker', '#composer button[type=submit]']) {
      const box = await page.locator(selector).boundingBox();
      expect(box, selector).not.toBeNull();
      expect(box!.x).toBeGreaterThanOrEqual(0);
      expect(box!.x + box!.width).toBeLessThanOrEqual(420);
    }
    await tabTo('#composer-input', 40);
    await page.keyboard.type('/eks-upgrade jobs demo');
    await page.keyboard.press('Enter');
    await channel().locator('.message.ephemeral', { hasText: /Succeeded|succeeded/ }).waitFor({ timeout: STEP_MS });
    await page.screenshot({ path: join(ARTIFACTS, 'playground-narrow.png'), fullPage: true });
  });

  it('drives the simulated cluster from the side panel: a stuck PDB and an armed update failure', async () => {
    await page.setViewportSize({ width: 1280, height: 900 });
    const pdb = page.locator('.pdb', { hasText: 'shop/api-pdb' });
    await pdb.getByRole('button', { name: 'Make stuck' }).click();
    await expect.poll(() => pdb.innerText(), { timeout: STEP_MS }).toMatch(/0 disruptions allowed[\s\S]*blocks eviction of api-/);
    await pdb.getByRole('button', { name: 'Unstick' }).click();
    await expect.poll(() => pdb.innerText(), { timeout: STEP_MS }).toMatch(/1 disruption allowed/);

    await page.getByRole('button', { name: 'Fail the next control-plane update' }).click();
    await expect.poll(() => page.locator('#fault-status').innerText()).toMatch(/armed: the next control-plane update of demo ends Failed/);
    const faults = await (await fetch(`${playground.sim.url}/_sim/faults`)).json();
    expect(faults.failNextClusterUpdate).toMatchObject({ cluster: 'demo', errorCode: 'Unknown' });
    await page.getByRole('button', { name: 'Disarm the update failure' }).click();
    await expect.poll(() => page.locator('#fault-status').innerText()).toBe('');

    await page.locator('#sim-speed').selectOption('300');
    await expect.poll(async () => (await (await fetch(`${playground.sim.url}/_sim/state`)).json()).speed).toBe(300);
  });

  it('breaks a workload on the kubelet version the nodes move to next, and heals it, from the side panel', async () => {
    const web = page.locator('#cluster-panel li', { hasText: 'shop/web' });
    const breakButton = web.getByRole('button', { name: /^Break on 1\.\d+$/ });
    const version = (await breakButton.innerText()).replace('Break on ', '');
    await breakButton.click();
    await expect.poll(() => web.innerText(), { timeout: STEP_MS }).toContain(`fails on ${version}`);
    const workloads = async () => (await (await fetch(`${playground.sim.url}/_sim/state`)).json()).clusters[0].workloads;
    expect((await workloads()).find((w: any) => w.name === 'web')).toMatchObject({ namespace: 'shop', failsReadinessOn: version });
    await web.getByRole('button', { name: 'Heal' }).click();
    await expect.poll(() => web.innerText(), { timeout: STEP_MS }).not.toContain('fails on');
    expect((await workloads()).find((w: any) => w.name === 'web').failsReadinessOn).toBeNull();
  });
});
