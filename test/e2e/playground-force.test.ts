import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { ARTIFACTS, openPlayground, type PlaygroundInBrowser } from '../support/playground-browser.js';

/**
 * Force in the playground, in a real Chromium: a PDB made stuck from the cluster panel blocks the next upgrade's
 * preflight; the approver forces past it through Slack's confirm dialog and the bot's reason modal. Its own
 * playground (and so its own channel pacing) keeps it from queueing behind the other file's thread.
 */
// A safety net for a busy machine (the page answers in a second or two when it is quiet), not a pace.
const STEP_MS = 60_000;

let opened: PlaygroundInBrowser;
let page: Page;

beforeAll(async () => {
  opened = await openPlayground();
  ({ page } = opened);
});

afterEach(() => {
  expect(opened.pageErrors, 'errors thrown by the page').toEqual([]);
});

afterAll(async () => {
  await opened?.close();
});

const channel = () => page.locator('#channel-messages');
const thread = () => page.locator('#thread-messages');

describe('playground in Chromium: Force', () => {
  it('forces past a blocking finding through the confirm dialog and the reason modal', async () => {
    // The PDB made stuck in the panel is a blocking preflight finding of the next upgrade.
    await page.locator('.pdb', { hasText: 'shop/api-pdb' }).getByRole('button', { name: 'Make stuck' }).click();
    await expect.poll(() => page.locator('.pdb', { hasText: 'shop/api-pdb' }).innerText(), { timeout: STEP_MS }).toMatch(/0 disruptions allowed/);
    await page.locator('#user-picker').selectOption('U0ALICE');
    await page.locator('#composer-input').fill('/eks-upgrade start demo --to 1.31');
    await page.locator('#composer-input').press('Enter');
    const card = channel().locator('.message', { hasText: /EKS upgrade · demo 1\.30 → 1\.31/i });
    await card.locator('.replies-link').click({ timeout: STEP_MS });
    const offered = thread().locator('.message', { has: page.locator('button[data-action-id="gate:force"]') });
    await offered.waitFor({ timeout: STEP_MS });
    const gate = thread().locator(`.message[data-ts="${await offered.getAttribute('data-ts')}"]`);
    await expect.poll(() => gate.innerText()).toMatch(/K8S003 error: PDB shop\/api-pdb allows 0 disruptions/);

    await page.locator('#user-picker').selectOption('U0BOB');
    await gate.getByRole('button', { name: 'Force' }).click();
    // Slack's confirm dialog first: Cancel sends nothing; the danger button goes on to the bot's modal.
    const confirm = page.locator('#confirm-dialog[open]');
    await confirm.waitFor();
    await expect.poll(() => confirm.innerText()).toMatch(/Force past this check\?/);
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    await expect.poll(() => page.locator('#confirm-dialog').evaluate((d: HTMLDialogElement) => d.open)).toBe(false);
    await gate.getByRole('button', { name: 'Force' }).click();
    await confirm.locator('[data-confirm-answer="confirm"]').click();

    const modal = page.locator('#modal-dialog[open]');
    await modal.waitFor({ timeout: STEP_MS });
    await expect.poll(() => modal.locator('#modal-title').innerText()).toBe('Force this step');
    await modal.getByLabel('Why is it safe to force?').fill('api can lose a replica during the upgrade; agreed in #shop');
    await modal.getByRole('button', { name: 'Force' }).click();
    await expect.poll(() => page.locator('#modal-dialog').evaluate((d: HTMLDialogElement) => d.open), { timeout: STEP_MS }).toBe(false);
    await expect.poll(() => gate.innerText(), { timeout: STEP_MS }).toMatch(/Forced by @bob .* reason: api can lose a replica during the upgrade/);
    await page.screenshot({ path: join(ARTIFACTS, 'playground-force.png') });
  });
});
