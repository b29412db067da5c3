import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '@km/service/testing';
import { toDocumentId } from '../src/index.js';
import { ENV, km } from './helpers.js';

const KEY = 'cli-test-key-'.padEnd(40, 'k');

let dir: string;
let docs: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'km-cli-'));
  docs = join(dir, 'docs');
  await mkdir(join(docs, 'astro'), { recursive: true });
  await writeFile(join(docs, 'tea.txt'), 'Green tea is made from leaves that are steamed, not oxidised.');
  await writeFile(join(docs, 'astro', 'neptune.md'), '# Neptune\n\nNeptune is the farthest planet from the Sun, with supersonic winds.');
  await writeFile(join(docs, '.hidden'), 'skipped');
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('km against a service URL', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService({ logLevel: 'silent', auth: { enabled: true, keys: [KEY] } });
  });
  afterAll(() => service.dispose());

  const remote = () => ['--url', service.url, '--key', KEY];

  it('imports a folder with tags and waits, with progress per document', async () => {
    const { stdout, stderr, code } = await km(['import', docs, '--index', 'notes', '--tag', 'source:cli', '--wait', ...remote()]);
    expect(code).toBe(0);
    expect(stdout).toBe('2 of 2 documents ready\n');
    expect(stderr).toMatch(/tea\.txt: 4\/4 steps, done/);
    expect(stderr).toMatch(/astro__neptune\.md: 4\/4 steps, done/);
  });

  it('searches with filters and prints JSON on request', async () => {
    const { stdout } = await km(['search', 'farthest planet winds', '--index', 'notes', '--filter', 'source:cli', '--json', ...remote()]);
    const result = JSON.parse(stdout) as { results: Array<{ documentId: string }> };
    expect(result.results[0]?.documentId).toBe('astro__neptune.md');
    const excluded = await km([
      'search',
      'farthest planet, green leaves',
      '--index',
      'notes',
      '--not',
      '__document_id:astro__neptune.md',
      '--json',
      ...remote(),
    ]);
    expect((JSON.parse(excluded.stdout) as { results: Array<{ documentId: string }> }).results.map((r) => r.documentId)).toEqual([
      'tea.txt',
    ]);
  });

  it('asks, streaming the answer and listing the sources', async () => {
    const { stdout, code } = await km(['ask', 'Which planet is farthest from the Sun?', '--index', 'notes', ...remote()]);
    expect(code).toBe(0);
    expect(stdout).toContain('Neptune is the farthest planet from the Sun');
    expect(stdout).toMatch(/Sources:\n {2}\[1\] neptune\.md \(document astro__neptune\.md\)/);
    // Once: the extractive answer's quotes point at this list ([1]) instead of repeating it.
    expect(stdout.match(/Sources:/g)).toHaveLength(1);
    expect(stdout).toMatch(/"\s*\[1\]/);
  });

  it('shows status, lists indexes, deletes', async () => {
    expect((await km(['status', 'tea.txt', '--index', 'notes', ...remote()])).stdout).toMatch(
      /^tea\.txt: completed; done: extract, partition, gen_embeddings, save_records/,
    );
    expect((await km(['indexes', ...remote()])).stdout).toBe('notes\n');
    expect((await km(['delete', 'tea.txt', '--index', 'notes', ...remote()])).stdout).toBe('deletion of tea.txt requested\n');
    const missing = await km(['status', 'nobody', '--index', 'notes', ...remote()]);
    expect(missing.code).toBe(3);
    expect(missing.stderr).toMatch(/not found/);
  });

  it('reports a wrong key as an error, without a stack trace', async () => {
    const { code, stderr } = await km(['indexes', '--url', service.url, '--key', 'wrong']);
    expect(code).toBe(4);
    expect(stderr).toMatch(/^km: .*403/);
    expect(stderr).not.toMatch(/at .*\.js/);
  });

  it('run in process (runKm), reads KM_URL and KM_API_KEY from the environment it is given, not from the process', async () => {
    expect(process.env.KM_URL ?? '').not.toBe(service.url);
    const listed = await km(['indexes'], { ...ENV, KM_URL: service.url, KM_API_KEY: KEY });
    expect(listed).toEqual({ code: 0, stdout: 'notes\n', stderr: '' }); // the service's index, imported above
    const refused = await km(['indexes'], { ...ENV, KM_URL: service.url, KM_API_KEY: 'wrong' });
    expect(refused.code).toBe(4);
    expect(refused.stderr).toMatch(/^km: .*403/);
  });
});

describe('km in local mode (no --url)', () => {
  it('imports, searches and asks on a data folder in this process', async () => {
    const data = ['--data-dir', join(dir, 'local-data')];
    const imported = await km(['import', join(docs, 'tea.txt'), '--id', 'tea', ...data]);
    expect(imported.code).toBe(0);
    expect(imported.stdout).toBe('1 of 1 documents ready\n');
    const search = await km(['search', 'steamed leaves', ...data]);
    expect(search.stdout).toMatch(/^tea\.txt \(document tea, index default\)\n {2}\[0\.\d{3}\] Green tea/);
    const bad = await km(['import', join(docs, 'nope.txt'), ...data]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/nope\.txt: no such file or folder/);
  });
});

describe('km upgrade', () => {
  it('says there is nothing to upgrade on the embedded memory DB, in text and JSON', async () => {
    const data = ['--data-dir', join(dir, 'upgrade-data')];
    const none = await km(['upgrade', ...data]);
    expect(none).toMatchObject({ code: 0, stdout: 'nothing to upgrade: the memory DB (simple) keeps no tables km upgrades\n' });
    expect((await km(['upgrade', '--json', ...data])).stdout).toBe('[]\n');
  });

  it('reports an unreachable PostgreSQL as an error on one line, without a stack trace', async () => {
    const result = await km(['upgrade', '--memory-db', 'postgres', '--postgres-url', 'postgres://km:km@127.0.0.1:1/km'], {
      ...process.env,
      KM_EMBEDDINGS: 'hashing',
      KM_LOG_LEVEL: 'silent',
      KM_URL: '',
    });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/ECONNREFUSED|connect|unavailable|transient/i);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it('reads the memory DB from --config', async () => {
    const config = join(dir, 'upgrade-postgres.json');
    await writeFile(config, JSON.stringify({ memoryDb: { type: 'postgres', postgresUrl: 'postgres://km:km@127.0.0.1:1/km' } }));
    const result = await km(['upgrade', '--config', config, '--data-dir', join(dir, 'upgrade-config')]);
    expect(result.stdout).not.toContain('nothing to upgrade');
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/ECONNREFUSED|connect|unavailable|transient/i);
  });
});

describe('document ids from paths', () => {
  it.each([
    ['report.pdf', 'report.pdf'],
    ['a/b/c.txt', 'a__b__c.txt'],
    ['../../etc/passwd', '__.__etc__passwd'],
    ['über notes.md', '_ber_notes.md'],
  ])('%s → %s', (path, id) => expect(toDocumentId(path)).toBe(id));
});
