import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Document } from '@km/core';
import { MemoryWebClient } from '@km/client';
import { startTestService } from '@km/service/testing';
import { km } from './helpers.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'km-cli-ready-'));
  await mkdir(join(dir, 'docs'));
  await writeFile(join(dir, 'docs', 'good.txt'), 'Beavers build dams from branches and mud.');
  await writeFile(join(dir, 'docs', 'blob.dat'), Buffer.from([0, 1, 2, 3, 0, 5]));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('km shows a document whose file failed as failed', () => {
  it('import counts it out, names the file and its reason, exits 2; status says failed', async () => {
    const data = ['--data-dir', join(dir, 'data')];
    const imported = await km(['import', join(dir, 'docs'), ...data]);
    expect(imported.code).toBe(2);
    expect(imported.stdout).toMatch(/^1 of 2 documents ready\n/);
    expect(imported.stdout).toMatch(/blob\.dat: failed: .*blob\.dat: no decoder for application\/octet-stream/);
    expect(imported.stderr).toMatch(/blob\.dat: \d\/4 steps, failed: /);
    const status = await km(['status', 'blob.dat', ...data]);
    expect(status.stdout).toMatch(/^blob\.dat: failed \(.*blob\.dat: no decoder/);
  });

  it('status of a document with one failed file among good ones (uploaded to a service) says failed, naming the file', async () => {
    const service = await startTestService({ logLevel: 'silent' });
    try {
      const client = new MemoryWebClient(service.url);
      await client.importDocument(
        new Document('partly').addBuffer('good.txt', 'Beavers build dams.').addBuffer('blob.dat', Buffer.from([0, 1, 2, 0])),
      );
      await client.waitForDocument('partly', { pollIntervalMs: 30, timeoutMs: 15_000 }).catch(() => undefined);
      const status = await km(['status', 'partly', '--url', service.url]);
      expect(status.stdout).toMatch(
        /^partly: failed \(1 of 2 file\(s\) could not be processed: blob\.dat: no decoder for application\/octet-stream/,
      );
      const json = await km(['status', 'partly', '--json', '--url', service.url]);
      expect(JSON.parse(json.stdout)).toMatchObject({ completed: false, failed: true, failed_files: [{ name: 'blob.dat' }] });
    } finally {
      await service.dispose();
    }
  });
});
