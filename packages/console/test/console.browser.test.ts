/// <reference lib="dom" />
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, type BrowserContext, chromium, type Locator, type Page } from 'playwright-core';
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
          await page.locator('#upload').getByLabel('Tags').fill('topic:space');
          await page.locator('input[name="files"]').setInputFiles({ name: 'moon.txt', mimeType: 'text/plain', buffer: Buffer.from(MOON) });
          await until(() => text(page.locator('.chosen-files'))).toContain('moon.txt');
          await page.getByRole('button', { name: 'Upload', exact: true }).click();
          await until(() => text(page.locator('#upload .message'))).toContain('Uploaded moon.txt');
          await page.locator('#upload').getByLabel('Tags').fill('topic:food');
          await dropFile(page, 'tea.txt', TEA);
          await until(() => text(page.locator('.chosen-files'))).toContain('tea.txt');
          await page.getByRole('button', { name: 'Upload', exact: true }).click();
          await until(() => text(page.locator('#upload .message'))).toContain('Uploaded tea.txt');

          // Index browser: both documents complete, every step done.
          const moonCard = page.locator('.document', { hasText: 'moon.txt' });
          const teaCard = page.locator('.document', { hasText: 'tea.txt' });
          await until(() => moonCard.getAttribute('data-state')).toBe('completed');
          await until(() => teaCard.getAttribute('data-state')).toBe('completed');
          expect(await text(moonCard.locator('.state'))).toMatch(/^Completed: (\d+) of \1 steps done\.$/);
          expect(await moonCard.locator('.steps li.remaining').count()).toBe(0);
          expect(await moonCard.locator('.steps li.done').count()).toBeGreaterThan(0);
          // A file no decoder reads: the pipeline fails, naming the file and the reason.
          await page.locator('#upload').getByLabel('Tags').fill('');
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
          const moonId = await documentIdOf(moonCard);
          await confirm.getByRole('button', { name: 'Delete document' }).click();
          await until(() => moonCard.count()).toBe(0);
          const status = await fetch(`${service.url}/upload-status?index=${index}&documentId=${moonId}`, {
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

      it('the must-show flow: uploads a document with an id and a tag, changes its tags in the index browser, finds it by the new tag, deletes it', async () => {
        const { context, page } = await openConsole(browser, service, keys ? key : undefined, keys ? 'flow-keys' : 'flow-open');
        try {
          const upload = page.locator('#upload');
          await upload.getByLabel('Document ID').fill('moon-facts');
          await upload.getByLabel('Tags').fill('team:alpha');
          await upload
            .locator('input[name="files"]')
            .setInputFiles({ name: 'moon.txt', mimeType: 'text/plain', buffer: Buffer.from(MOON) });
          await upload.getByRole('button', { name: 'Upload', exact: true }).click();
          await until(() => text(upload.locator('.message'))).toContain('as "moon-facts"');

          // The index browser lists it, completed, with its tag and file.
          const row = page.locator('#documents .document[data-document-id="moon-facts"]');
          await until(() => row.getAttribute('data-state')).toBe('completed');
          expect(await row.locator('.tags li').allTextContents()).toEqual(['team:alpha']);
          expect(await text(row.locator('.files'))).toContain('moon.txt');

          // Its tags changed in the browser.
          await row.getByRole('button', { name: 'Edit tags' }).click();
          const editor = row.getByLabel('Tags of the document');
          expect(await editor.inputValue()).toBe('team:alpha');
          await editor.fill('team:beta\nlevel:public');
          await row.getByRole('button', { name: 'Save tags' }).click();
          await until(() => row.locator('.tags li').allTextContents()).toEqual(['level:public', 'team:beta']);

          // A search filtered by the new tag finds it; by the old one, nothing.
          const search = page.locator('#search');
          await search.getByLabel('Minimum relevance').fill('-1');
          await search.getByLabel('Query').fill('How far away is the Moon?');
          await search.getByLabel('Tag filters').fill('team:beta');
          await search.getByRole('button', { name: 'Search' }).click();
          await until(() =>
            search.locator('.citation').evaluateAll((items) => items.map((i) => i.getAttribute('data-document-id'))),
          ).toEqual(['moon-facts']);
          await search.getByLabel('Tag filters').fill('team:alpha');
          await search.getByRole('button', { name: 'Search' }).click();
          await until(() => text(search.locator('.summary'))).toBe('No result.');

          // Deleted from the browser, after the confirmation: gone from the list.
          await row.getByRole('button', { name: 'Delete document…' }).click();
          await page.getByRole('alertdialog', { name: 'Delete document' }).getByRole('button', { name: 'Delete document' }).click();
          await until(() => row.count()).toBe(0);
          await until(() => text(page.locator('#documents [role="status"].muted'))).toContain('No document in');
        } finally {
          await context.close();
        }
      });

      it('/favicon.ico of the page origin leads to the console icon', async () => {
        const res = await fetch(`${service.url}/favicon.ico`);
        expect(res.status).toBe(200);
        expect(res.url).toBe(`${service.url}/ui/favicon.svg`);
        expect(res.headers.get('content-type')).toContain('image/svg+xml');
      });

      it.runIf(keys)('shows the service’s reason when it refuses the access key (403)', async () => {
        const context = await browser.newContext();
        await context.addInitScript(() => sessionStorage.setItem('km-console-access-key', 'a-wrong-key'));
        const page = await context.newPage();
        try {
          await page.goto(`${service.url}/ui/`);
          const dialog = page.getByRole('dialog', { name: 'Access key' });
          await visible(dialog);
          const detail = 'the access key in the Authorization header is not valid: send one of the service';
          expect(await text(dialog)).toContain(`The access key was not accepted: ${detail}`);
          await dialog.getByRole('button', { name: 'Cancel' }).click();
          await until(() => text(page.locator('#index .message'))).toContain(detail);
          expect(await text(page.locator('body'))).not.toMatch(/forbidden/i);
        } finally {
          await context.close();
        }
      });

      it.runIf(!keys)('index browser: pages through the cursors, filters by state and by tag', async () => {
        const index = 'paging';
        for (let i = 1; i <= 12; i++)
          await uploadText(service, index, `doc-${String(i).padStart(2, '0')}`, `Note number ${i}.`, [`parity:${i % 2 ? 'odd' : 'even'}`]);
        const { context, page } = await openConsole(browser, service, undefined, index);
        try {
          const documents = page.locator('#documents');
          const ids = () => documents.locator('.document').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-document-id')));
          const first = Array.from({ length: 10 }, (_, i) => `doc-${String(i + 1).padStart(2, '0')}`);
          await until(ids).toHaveLength(12);
          expect(await documents.getByRole('button', { name: 'Next page' }).isDisabled()).toBe(true);

          await documents.getByLabel('Per page').selectOption('10');
          await until(ids).toEqual(first);
          expect(await text(documents.locator('[role="status"].muted'))).toBe('Page 1: 10 document(s) in "paging".');
          expect(await documents.getByRole('button', { name: 'Previous page' }).isDisabled()).toBe(true);
          await documents.getByRole('button', { name: 'Next page' }).click();
          await until(ids).toEqual(['doc-11', 'doc-12']);
          expect(await text(documents.locator('[role="status"].muted'))).toBe('Page 2: 2 document(s) in "paging".');
          expect(await documents.getByRole('button', { name: 'Next page' }).isDisabled()).toBe(true);
          await documents.getByRole('button', { name: 'Previous page' }).click();
          await until(ids).toEqual(first);

          // Filters start again from the first page.
          await documents.getByLabel('Per page').selectOption('100');
          await documents.getByLabel('Tag filter').fill('parity:even');
          await documents.getByRole('button', { name: 'Refresh' }).click();
          await until(ids).toEqual(['doc-02', 'doc-04', 'doc-06', 'doc-08', 'doc-10', 'doc-12']);
          await documents.getByLabel('Tag filter').fill('');
          await until(() => documents.locator('.document[data-state="in_progress"]').count()).toBe(0);
          await documents.getByLabel('State').selectOption('failed');
          await until(ids).toEqual([]);
          expect(await text(documents.locator('[role="status"].muted'))).toBe('No document in "paging" matches.');
          await documents.getByLabel('State').selectOption('completed');
          await until(ids).toHaveLength(12);
        } finally {
          await context.close();
        }
      });

      it.runIf(!keys)(
        'document details show the uploads and partitions (text on demand); ingest again runs the pipeline anew',
        async () => {
          const index = 'details';
          await uploadText(service, index, 'moon-doc', MOON, ['topic:space']);
          const { context, page } = await openConsole(browser, service, undefined, index);
          try {
            const row = page.locator('#documents .document[data-document-id="moon-doc"]');
            await until(() => row.getAttribute('data-state')).toBe('completed');
            await row.getByText('Files and partitions').click();
            await until(() => text(row.locator('.uploads'))).toContain('moon.txt');
            const partition = row.locator('.partitions li').first();
            await partition.getByRole('button', { name: /^Partition 1 of moon\.txt/ }).click();
            await until(() => text(partition.locator('.passage-text'))).toBe(MOON);
            const [download] = await Promise.all([
              page.waitForEvent('download'),
              row.getByRole('button', { name: 'Download moon.txt' }).click(),
            ]);
            expect(await readFile(await download.path(), 'utf8')).toBe(MOON);

            // Ingest again: the same id, tags and file through a new upload; the row follows it to completion.
            const before = await row.locator('time').getAttribute('datetime');
            await row.getByRole('button', { name: 'Ingest again' }).click();
            await until(() => text(page.locator('#documents .message'))).toContain('"moon-doc" is being ingested again.');
            await until(() => row.locator('time').getAttribute('datetime')).not.toBe(before);
            await until(() => row.getAttribute('data-state')).toBe('completed');
            expect(await row.locator('.tags li').allTextContents()).toEqual(['topic:space']);
            expect(await text(row.locator('.files'))).toContain('moon.txt');

            // The service's reason shows when it refuses new tags.
            await row.getByRole('button', { name: 'Edit tags' }).click();
            await row.getByLabel('Tags of the document').fill('__secret:1');
            await row.getByRole('button', { name: 'Save tags' }).click();
            await until(() => text(row.locator('.tag-editor .error'))).toContain('Could not save the tags: tag key "__secret" is reserved');
          } finally {
            await context.close();
          }
        },
      );

      it.runIf(!keys)('upload with a document id the service refuses shows its reason', async () => {
        const { context, page } = await openConsole(browser, service, undefined, 'bad-ids');
        try {
          const upload = page.locator('#upload');
          await upload.getByLabel('Document ID').fill('not valid!');
          await upload.locator('input[name="files"]').setInputFiles({ name: 'tea.txt', mimeType: 'text/plain', buffer: Buffer.from(TEA) });
          await upload.getByRole('button', { name: 'Upload', exact: true }).click();
          await until(() => text(upload.locator('.message'))).toContain(
            'Upload failed: document id "not valid!" is invalid: use letters, digits',
          );
        } finally {
          await context.close();
        }
      });
    });
  }
});

/** A new tab with the console on `index` (the key, when given, already in the tab's sessionStorage). */
async function openConsole(
  browser: Browser,
  service: ConsoleService,
  key: string | undefined,
  index: string,
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ acceptDownloads: true, viewport: { width: 1100, height: 900 } });
  if (key) await context.addInitScript((k) => sessionStorage.setItem('km-console-access-key', k), key);
  const page = await context.newPage();
  await page.goto(`${service.url}/ui/`);
  await visible(page.getByRole('heading', { name: 'km console' }));
  await page.getByLabel('New index name').fill(index);
  await page.getByRole('button', { name: 'Use new index' }).click();
  await until(() => text(page.locator('.current-index'))).toBe(index);
  return { context, page };
}

/** Uploads a text file as a document through the HTTP API (a fixture for the browser to find). */
async function uploadText(service: ConsoleService, index: string, documentId: string, content: string, tags: string[]): Promise<void> {
  const form = new FormData();
  form.append('index', index);
  form.append('documentId', documentId);
  for (const tag of tags) form.append('tags', tag);
  form.append('file1', new Blob([content], { type: 'text/plain' }), documentId === 'moon-doc' ? 'moon.txt' : `${documentId}.txt`);
  const res = await fetch(`${service.url}/upload`, { method: 'POST', body: form, headers: service.keyHeaders });
  if (!res.ok) throw new Error(`upload of ${documentId} answered ${res.status}: ${await res.text()}`);
}

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
