/// <reference lib="dom" />
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser, chromium, type Locator } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ConsoleService, startConsoleService } from './console-service.js';

const CHROMIUM = process.env.KM_CHROMIUM ?? '/usr/bin/chromium';
const HAS_CHROMIUM = existsSync(CHROMIUM);

if (!HAS_CHROMIUM)
  console.warn(`console sync browser test skipped: no Chromium at ${CHROMIUM} (apt-get install chromium, or set KM_CHROMIUM)`);

describe.skipIf(!HAS_CHROMIUM)('the console Sync view in headless Chromium', () => {
  let browser: Browser;
  let root: string;
  let service: ConsoleService;
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'km-console-sync-'));
    await mkdir(join(root, 'notes'));
    await writeFile(join(root, 'notes', 'comets.txt'), 'Comets have tails of gas and dust that point away from the Sun.');
    await writeFile(join(root, 'notes', 'tides.md'), '# Tides\n\nTides are raised by the pull of the Moon.');
    service = await startConsoleService({ syncRoots: [root] });
    const page = await fetch(`${service.url}/ui/`);
    if (page.status !== 200) throw new Error(`GET /ui/ answered ${page.status}: build the console first (pnpm --filter @km/console build)`);
    browser = await chromium.launch({ executablePath: CHROMIUM });
  });
  afterAll(async () => {
    await browser?.close();
    await service?.dispose();
    await rm(root, { recursive: true, force: true });
  });

  it('starts a folder sync into the chosen index and sees it complete with its counts; a folder outside the roots is refused, naming KM_SYNC_ROOTS', async () => {
    const context = await browser.newContext({ viewport: { width: 1100, height: 900 } });
    const page = await context.newPage();
    try {
      await page.goto(`${service.url}/ui/`);
      await visible(page.getByRole('heading', { name: 'km console' }));
      await page.getByLabel('New index name').fill('synced');
      await page.getByRole('button', { name: 'Use new index' }).click();
      await until(() => text(page.locator('.current-index'))).toBe('synced');

      const sync = page.locator('#sync');
      await page.getByRole('link', { name: 'Sync' }).click();
      await sync.getByLabel('Source type').selectOption('folder');
      // Outside the roots: the service's reason is shown, and no key is asked for.
      await sync.getByLabel('Folder path').fill(tmpdir());
      await sync.getByRole('button', { name: 'Start sync' }).click();
      await until(() => text(sync.locator('.message'))).toMatch(/Sync refused: .*KM_SYNC_ROOTS/);
      expect(await page.getByRole('dialog', { name: 'Access key' }).count()).toBe(0);

      await sync.getByLabel('Folder path').fill(join(root, 'notes'));
      await sync.getByRole('button', { name: 'Start sync' }).click();
      await until(() => text(sync.locator('.message'))).toContain('started');
      const job = sync.locator('.sync-job').first();
      await until(() => job.getAttribute('data-state')).toBe('completed');
      expect(await text(job.locator('.sync-index'))).toBe('synced');
      expect(await text(job.locator('.counts'))).toBe('listed 2, added 2, updated 0, unchanged 0, deleted 0, failed 0');

      // The synced files are documents of the index.
      await page.locator('#documents').getByRole('button', { name: 'Refresh' }).click();
      await until(() => page.locator('#documents .document').count()).toBe(2);
    } finally {
      await context.close();
    }
  });
});

function until<T>(read: () => Promise<T>) {
  return expect.poll(read, { timeout: 30_000, interval: 50 });
}

async function visible(locator: Locator): Promise<void> {
  await locator.waitFor({ state: 'visible', timeout: 30_000 });
}

async function text(locator: Locator): Promise<string> {
  return (await locator.textContent()) ?? '';
}
