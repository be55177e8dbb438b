import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openPlayground, type PlaygroundInBrowser } from '../support/playground-browser.js';

/**
 * Issue 25 item 6, in a real Chromium at 1440 px: emoji shortcodes show as emoji, the answer to `plan` is scrolled
 * into view, Force and Abort look different (Slack's danger and default button styles), and the 🏁 summary's step
 * table fits the thread without being cut off at the right.
 */
// A safety net for a busy machine (the page answers in a second or two when it is quiet), not a pace.
const STEP_MS = 60_000;
let opened: PlaygroundInBrowser;
let page: Page;

beforeAll(async () => {
  opened = await openPlayground();
  ({ page } = opened);
  await page.setViewportSize({ width: 1440, height: 900 });
});
afterEach(() => {
  expect(opened.pageErrors, 'errors thrown by the page').toEqual([]);
});
afterAll(async () => opened?.close());

const channel = () => page.locator('#channel-messages');
const thread = () => page.locator('#thread-messages');

async function type(command: string): Promise<void> {
  await page.locator('#composer-input').fill(command);
  await page.locator('#composer-input').press('Enter');
}

/** Whether the element's top is inside its scrolling list's visible area. */
function inView(selector: string, hasText: RegExp) {
  return page.locator(selector).filter({ hasText }).last().evaluate((el) => {
    const list = el.closest('.messages')!.getBoundingClientRect();
    const box = el.getBoundingClientRect();
    return box.top >= list.top - 1 && box.top < list.bottom - 20;
  });
}

describe('playground looks as Slack does', () => {
  it('shows shortcodes as emoji', async () => {
    await page.locator('#user-picker').selectOption('U0ALICE');
    await type('/eks-upgrade status demo');
    const answer = channel().locator('.message.ephemeral', { hasText: /control plane/ }).last();
    await answer.waitFor({ timeout: STEP_MS });
    // The rehearsal's answer starts with :performing_arts: (its REHEARSAL thread, answered "stop", ends by itself).
    await type('/eks-upgrade rehearse demo --to 1.31 --answers stop');
    await channel().locator('.message.ephemeral', { hasText: /Rehearsing the upgrade of demo/ }).waitFor({ timeout: STEP_MS });
    await expect.poll(() => channel().innerText(), { timeout: STEP_MS }).toContain('🎭');
    await expect.poll(() => channel().innerText(), { timeout: STEP_MS }).toContain('🟢');
    expect(await channel().innerText()).not.toMatch(/:(rewind|performing_arts|large_green_circle|[a-z_]+):/);
  });

  it('scrolls the answer to plan into view', async () => {
    await type('/eks-upgrade plan demo');
    await channel().locator('.message', { hasText: /Plan: demo 1\.30 → 1\.31/i }).first().waitFor({ timeout: STEP_MS });
    await expect.poll(() => inView('#channel-messages .message', /Plan: demo 1\.30 → 1\.31/i), { timeout: STEP_MS }).toBe(true);
  });

  it('draws Force and Abort differently, and the summary step table fits at 1440 px', async () => {
    await page.locator('.pdb', { hasText: 'shop/api-pdb' }).getByRole('button', { name: 'Make stuck' }).click();
    await expect.poll(() => page.locator('.pdb', { hasText: 'shop/api-pdb' }).innerText(), { timeout: STEP_MS }).toMatch(/0 disruptions allowed/);
    await type('/eks-upgrade start demo --to 1.31');
    const card = channel().locator('.message', { hasText: /EKS upgrade · demo 1\.30 → 1\.31/i });
    await card.locator('.replies-link').click({ timeout: STEP_MS });
    const gate = thread().locator('.message', { has: page.locator('button[data-action-id="gate:force"]') });
    await gate.waitFor({ timeout: STEP_MS });
    const look = (action: string) => gate.locator(`button[data-action-id="gate:${action}"]`).evaluate((b) => { const s = getComputedStyle(b); return `${s.backgroundColor} ${s.color}`; });
    expect(await look('force')).not.toBe(await look('abort'));

    await gate.locator('button[data-action-id="gate:abort"]').click();
    await page.locator('#confirm-dialog[open] [data-confirm-answer="confirm"]').click();
    const summary = thread().locator('.message', { hasText: /Upgrade 1\.30 → 1\.31: ⛔ Aborted/i });
    await summary.waitFor({ timeout: STEP_MS });
    const table = summary.locator('pre').first();
    await expect.poll(() => table.evaluate((el) => el.scrollWidth <= el.clientWidth + 1)).toBe(true);
    await expect.poll(() => table.evaluate((el) => el.getBoundingClientRect().right <= el.closest('.messages')!.getBoundingClientRect().right + 1)).toBe(true);
  });
});
