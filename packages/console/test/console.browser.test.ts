/// <reference lib="dom" />
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, chromium, type Locator, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ConsoleService, startConsoleService } from './console-service.js';

const CHROMIUM = process.env.KM_CHROMIUM ?? '/usr/bin/chromium';
const HAS_CHROMIUM = existsSync(CHROMIUM);
/** `pnpm --filter @km/console screenshots` sets it: each main view is saved to docs/console/. */
const SCREENSHOTS =
  process.env.KM_CONSOLE_SCREENSHOTS === '1' ? join(dirname(fileURLToPath(import.meta.url)), '../../../docs/console') : undefined;

const MOON = "The Moon is Earth's only natural satellite. It orbits at an average distance of 384,400 km.";
const TEA = 'Green tea is made from leaves that are not oxidised. It is popular in Japan and China.';

if (!HAS_CHROMIUM) console.warn(`console browser tests skipped: no Chromium at ${CHROMIUM} (apt-get install chromium, or set KM_CHROMIUM)`);

describe.skipIf(!HAS_CHROMIUM)('web console in headless Chromium', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await chromium.launch({ executablePath: CHROMIUM });
    if (SCREENSHOTS) await mkdir(SCREENSHOTS, { recursive: true });
  });
  afterAll(() => browser?.close());

  for (const keys of [false, true]) {
    describe(keys ? 'with access keys on' : 'with access keys off', () => {
      const key = randomBytes(32).toString('hex');
      let service: ConsoleService;
      beforeAll(async () => {
        service = await startConsoleService(keys ? { accessKey: key } : {});
        const page = await fetch(`${service.url}/ui/`);
        if (page.status !== 200)
          throw new Error(`GET /ui/ answered ${page.status}: build the console first (pnpm --filter @km/console build)`);
      });
      afterAll(() => service?.dispose());

      it('uploads, watches the pipeline, searches with a filter, asks and follows a citation, then deletes', async () => {
        const context = await browser.newContext({ acceptDownloads: true, viewport: { width: 1100, height: 900 } });
        const page = await context.newPage();
        const failedRequests: string[] = [];
        page.on('requestfailed', (r) => failedRequests.push(r.url()));
        try {
          await page.goto(`${service.url}/ui`);
          expect(new URL(page.url()).pathname).toBe('/ui/');
          if (keys) await giveKey(page, key, true);
          await visible(page.getByRole('heading', { name: 'km console' }));

          // Index: a new one, created by its first upload.
          const index = keys ? 'console-keys' : 'console-open';
          await page.getByLabel('New index name').fill(index);
          await page.getByRole('button', { name: 'Use new index' }).click();
          await until(() => text(page.locator('.current-index'))).toBe(index);

          // Upload: one file chosen, one dropped, each with its tags.
          await page.getByLabel('Tags').fill('topic:space');
          await page.locator('input[name="files"]').setInputFiles({ name: 'moon.txt', mimeType: 'text/plain', buffer: Buffer.from(MOON) });
          await until(() => text(page.locator('.chosen-files'))).toContain('moon.txt');
          await page.getByRole('button', { name: 'Upload', exact: true }).click();
          await until(() => text(page.locator('#upload .message'))).toContain('Uploaded moon.txt');
          await page.getByLabel('Tags').fill('topic:food');
          await dropFile(page, 'tea.txt', TEA);
          await until(() => text(page.locator('.chosen-files'))).toContain('tea.txt');
          await page.getByRole('button', { name: 'Upload', exact: true }).click();
          await until(() => text(page.locator('#upload .message'))).toContain('Uploaded tea.txt');

          // Pipeline view: both documents complete, every step done.
          const moonCard = page.locator('.document', { hasText: 'moon.txt' });
          const teaCard = page.locator('.document', { hasText: 'tea.txt' });
          await until(() => moonCard.getAttribute('data-state')).toBe('completed');
          await until(() => teaCard.getAttribute('data-state')).toBe('completed');
          expect(await text(moonCard.locator('.state'))).toMatch(/^Completed: (\d+) of \1 steps done\.$/);
          expect(await moonCard.locator('.steps li.remaining').count()).toBe(0);
          expect(await moonCard.locator('.steps li.done').count()).toBeGreaterThan(0);
          // A file no decoder reads: the pipeline fails, naming the file and the reason.
          await page.getByLabel('Tags').fill('');
          await page
            .locator('input[name="files"]')
            .setInputFiles({ name: 'blob.dat', mimeType: 'application/octet-stream', buffer: Buffer.from([0, 1, 2, 0, 3]) });
          await page.getByRole('button', { name: 'Upload', exact: true }).click();
          const blobCard = page.locator('.document', { hasText: 'blob.dat' });
          await until(() => blobCard.getAttribute('data-state')).toBe('failed');
          expect(await text(blobCard.locator('.state'))).toMatch(/^Failed after \d+ of \d+ steps\.$/);
          expect(await text(blobCard.locator('.failures'))).toMatch(/blob\.dat: .*no decoder/);
          await shoot(page, keys, 'documents', '#documents');

          // Search with a tag filter: only the food document answers, with its relevance.
          const search = page.locator('#search');
          // Relevance floor -1: word-hashing vectors give unrelated text any score; the filters decide.
          await search.getByLabel('Minimum relevance').fill('-1');
          await search.getByLabel('Query').fill('green tea leaves from Japan');
          await search.getByLabel('Tag filters').fill('topic:food');
          await search.getByRole('button', { name: 'Search' }).click();
          await until(() => search.locator('.citation .source-name').allTextContents()).toEqual(['tea.txt']);
          expect(await text(search.locator('.citation .relevance').first())).toMatch(/relevance -?\d\.\d{3}/);
          // NOT: everything but the food document.
          await search.getByLabel('Tag filters').fill('!topic:food');
          await search.getByRole('button', { name: 'Search' }).click();
          await until(() => search.locator('.citation .source-name').allTextContents()).toEqual(['moon.txt']);
          // OR of two lines: both.
          await search.getByLabel('Tag filters').fill('topic:food\ntopic:space');
          await search.getByRole('button', { name: 'Search' }).click();
          await until(async () => (await search.locator('.citation .source-name').allTextContents()).sort()).toEqual([
            'moon.txt',
            'tea.txt',
          ]);
          await shoot(page, keys, 'search', '#search');

          // Ask: the streamed answer, its citation opened, and the file through /download.
          const ask = page.locator('#ask');
          await ask.getByLabel('Question').fill('At what average distance does the Moon orbit?');
          await ask.getByLabel('Tag filters').fill('topic:space');
          await ask.getByRole('button', { name: 'Ask' }).click();
          await until(() => ask.locator('.answer').getAttribute('data-state')).toBe('done');
          // The extractive answer's quotes render as quotes (no raw "> " markers) and the sources
          // are listed once, below it; a quote's [1] opens the passage it cites.
          expect(await text(ask.locator('.answer blockquote').first())).toContain('384,400 km');
          expect(await text(ask.locator('.answer'))).not.toMatch(/^>|\n>|Sources:/);
          expect(await ask.locator('.citation').count()).toBe(1);
          await ask.locator('.answer .cite').first().click();
          const open = ask.getByRole('button', { name: /^Open moon\.txt, passage \d+$/ }).first();
          expect(await open.getAttribute('aria-expanded')).toBe('true');
          await visible(ask.locator('.passage-text').first());
          expect(await text(ask.locator('.passage-text').first())).toContain('384,400 km');
          const [download] = await Promise.all([
            page.waitForEvent('download'),
            ask.getByRole('link', { name: 'Download moon.txt' }).click(),
          ]);
          expect(download.suggestedFilename()).toBe('moon.txt');
          expect(await readFile(await download.path(), 'utf8')).toBe(MOON);
          await shoot(page, keys, 'ask', '#ask');

          // Delete the moon document, confirming in the dialog.
          await moonCard.getByRole('button', { name: 'Delete document…' }).click();
          const confirm = page.getByRole('alertdialog', { name: 'Delete document' });
          await visible(confirm);
          await shoot(page, keys, 'confirm-delete');
          await confirm.getByRole('button', { name: 'Delete document' }).click();
          await until(() => moonCard.getAttribute('data-state')).toBe('deleted');
          const status = await fetch(`${service.url}/upload-status?index=${index}&documentId=${await documentIdOf(moonCard)}`, {
            headers: service.keyHeaders,
          });
          expect(status.status).toBe(404);
          expect(await teaCard.getAttribute('data-state')).toBe('completed');

          // The key lives in this tab's sessionStorage only.
          const stored = await page.evaluate(() => ({
            session: sessionStorage.getItem('km-console-access-key'),
            local: localStorage.length,
          }));
          expect(stored).toEqual({ session: keys ? key : null, local: 0 });
          expect(failedRequests).toEqual([]);
        } finally {
          await context.close();
        }
      });

      it('works on a narrow screen with the keyboard: deleting an index asks first, Escape keeps it', async () => {
        const context = await browser.newContext({ viewport: { width: 390, height: 800 }, isMobile: true, hasTouch: true });
        const page = await context.newPage();
        try {
          await page.goto(`${service.url}/ui/`);
          if (keys) await giveKey(page, key);
          await visible(page.getByRole('heading', { name: 'km console' }));
          // Nothing is wider than the screen.
          expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
          await shoot(page, keys, 'narrow', undefined, true);

          const index = keys ? 'console-keys' : 'console-open';
          await page.getByRole('combobox', { name: 'Index', exact: true }).selectOption(index);
          await until(() => text(page.locator('.current-index'))).toBe(index);
          const remove = page.getByRole('button', { name: 'Delete index…' });
          await remove.focus();
          await page.keyboard.press('Enter');
          const dialog = page.getByRole('alertdialog', { name: 'Delete index' });
          await visible(dialog);
          await until(() => focused(dialog.getByRole('button', { name: 'Cancel' }))).toBe(true);
          await page.keyboard.press('Escape');
          await until(() => dialog.count()).toBe(0);
          await until(() => focused(remove)).toBe(true);
          expect(await indexNames(service)).toContain(index);

          await page.keyboard.press('Enter');
          await page.getByRole('alertdialog', { name: 'Delete index' }).getByRole('button', { name: 'Delete index' }).click();
          await until(() => text(page.locator('#index .message'))).toContain(`Deletion of index "${index}" requested`);
          await until(() => indexNames(service)).not.toContain(index);
        } finally {
          await context.close();
        }
      });
    });
  }
});

/** Polls `read` until the assertion holds (the page updates as answers arrive). */
function until<T>(read: () => Promise<T>) {
  return expect.poll(read, { timeout: 30_000, interval: 50 });
}

async function visible(locator: Locator): Promise<void> {
  await locator.waitFor({ state: 'visible', timeout: 30_000 });
}

async function text(locator: Locator): Promise<string> {
  return (await locator.textContent()) ?? '';
}

async function focused(locator: Locator): Promise<boolean> {
  return locator.evaluate((element) => element === document.activeElement);
}

/** The page asks for the key: a wrong one is refused and asked for again, then the right one is kept. */
async function giveKey(page: Page, key: string, screenshot = false): Promise<void> {
  const dialog = page.getByRole('dialog', { name: 'Access key' });
  await visible(dialog);
  expect(await text(dialog)).toContain('needs an access key');
  if (screenshot) await shoot(page, true, 'access-key');
  await dialog.getByLabel('Access key').fill('not-the-key');
  await dialog.getByRole('button', { name: 'Use key' }).click();
  await until(() => text(page.getByRole('dialog', { name: 'Access key' }))).toContain('was not accepted');
  await page.getByRole('dialog', { name: 'Access key' }).getByLabel('Access key').fill(key);
  await page.getByRole('dialog', { name: 'Access key' }).getByRole('button', { name: 'Use key' }).click();
  await until(() => page.getByRole('dialog', { name: 'Access key' }).count()).toBe(0);
}

/** Drops a file on the drop zone as a browser does: a DataTransfer with the file, in a drop event. */
async function dropFile(page: Page, name: string, text: string): Promise<void> {
  const transfer = await page.evaluateHandle(
    ([fileName, content]) => {
      const data = new DataTransfer();
      data.items.add(new File([content ?? ''], fileName ?? 'file.txt', { type: 'text/plain' }));
      return data;
    },
    [name, text],
  );
  await page.locator('.drop-zone').dispatchEvent('dragover', { dataTransfer: transfer });
  await page.locator('.drop-zone').dispatchEvent('drop', { dataTransfer: transfer });
}

async function documentIdOf(card: Locator): Promise<string> {
  const id = await card.getAttribute('data-document-id');
  if (!id) throw new Error('the document card has no id');
  return encodeURIComponent(id);
}

async function indexNames(service: ConsoleService): Promise<string[]> {
  const res = await fetch(`${service.url}/indexes`, { headers: service.keyHeaders });
  return ((await res.json()) as { results: Array<{ name: string }> }).results.map((r) => r.name);
}

/** With KM_CONSOLE_SCREENSHOTS=1, saves the view (a section, or the page) as docs/console/<name>.png, once (keys off, or the key dialog). */
async function shoot(page: Page, keys: boolean, name: string, selector?: string, fullPage = false): Promise<void> {
  if (!SCREENSHOTS || (keys && name !== 'access-key')) return;
  const path = join(SCREENSHOTS, `${name}.png`);
  if (selector) await page.locator(selector).screenshot({ path });
  else await page.screenshot({ path, fullPage });
}
