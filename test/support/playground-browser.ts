import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startPlayground, type Playground } from '../../src/playground/start-playground.js';
import { E2E_THREAD_INTERVAL_MS } from './e2e-stack.js';
import { deleteKeys, redisUrl } from './redis-url.js';

/**
 * The playground opened in a real Chromium (Debian's `chromium`, driven by playwright-core), for the end-to-end
 * tests of the page. Screenshots go to $PLAYGROUND_ARTIFACTS (default: a folder under the OS temp dir), never
 * into the repository.
 */
export const ARTIFACTS = process.env.PLAYGROUND_ARTIFACTS ?? join(tmpdir(), 'eks-upgrade-playground');

function chromiumPath(): string {
  if (process.env.CHROMIUM_PATH) return process.env.CHROMIUM_PATH;
  try {
    return execFileSync('sh', ['-c', 'command -v chromium || command -v chromium-browser'], { encoding: 'utf8' }).trim().split('\n')[0];
  } catch {
    throw new Error('no chromium on PATH: install it (apt-get install -y chromium; .ci/run does) or set CHROMIUM_PATH');
  }
}

export interface PlaygroundInBrowser {
  playground: Playground;
  page: Page;
  /** Errors the page threw; a test fails when there are any. */
  pageErrors: string[];
  close(): Promise<void>;
}

/** The demo scenario, fast (a 10-minute control-plane update takes a second, the thread is not held to Slack's pace), opened at 1280×900. */
export async function openPlayground(): Promise<PlaygroundInBrowser> {
  mkdirSync(ARTIFACTS, { recursive: true });
  const playground = await startPlayground({ scenario: 'demo', speed: 600, port: 0, redisUrl, threadPacing: { minIntervalMs: E2E_THREAD_INTERVAL_MS } });
  let browser: Browser | undefined;
  try {
    browser = await chromium.launch({ executablePath: chromiumPath() });
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const pageErrors: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(error.message));
    await page.goto(playground.url);
    await page.waitForFunction(() => document.querySelectorAll('#user-picker option').length === 3);
    return {
      playground,
      page,
      pageErrors,
      async close() {
        await browser?.close();
        await playground.close();
        await deleteKeys(`${playground.queuePrefix}*`);
      },
    };
  } catch (error) {
    await browser?.close();
    await playground.close();
    throw error;
  }
}

/** Presses Tab until `selector` has focus (a keyboard user's way there), failing after `limit` presses. */
export async function tabTo(page: Page, selector: string, limit = 20): Promise<void> {
  for (let presses = 0; presses < limit; presses++) {
    if (await page.locator(selector).evaluate((el) => el === document.activeElement)) return;
    await page.keyboard.press('Tab');
  }
  throw new Error(`${selector} never got focus after ${limit} Tab presses`);
}
