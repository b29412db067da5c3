import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_DOCUMENT_ID_BYTES, MAX_FILE_NAME_BYTES } from '@km/core/connector';
import { startTestService, useTestService, waitForCompletion } from './helpers.js';
import { multipartBody, sendRaw } from './raw-http.js';
import { newSpoolFolderName } from '../src/http/upload-spool.js';

const BOUNDARY = '0c1d2e3f-4a5b-6c7d-8e9f-a0b1c2d3e4f5';

describe('upload edge: names and tags as KM clients send them', () => {
  const service = useTestService();

  const upload = (fields: Array<[string, string]>, fileName = 'a.txt', content = 'The Moon orbits the Earth.') =>
    sendRaw(
      service().url,
      'POST',
      '/upload',
      { 'content-type': `multipart/form-data; boundary="${BOUNDARY}"` },
      multipartBody(BOUNDARY, fields, [{ name: fileName, content }]),
    );

  it('refuses a document id over 255 bytes with 400, not 500 (ENAMETOOLONG)', async () => {
    const res = await upload([['documentId', 'a'.repeat(MAX_DOCUMENT_ID_BYTES + 1)]]);
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body)).toMatchObject({ code: 'invalid_document_id', detail: expect.stringMatching(/255/) });
  });

  it('refuses a file name whose derived files would not fit in storage, with 400 naming the limit', async () => {
    for (const name of ['n'.repeat(200) + '.txt', 'é'.repeat(80) + '.txt']) {
      const res = await upload([['documentId', 'long-name']], name);
      expect(res.status).toBe(400);
      expect(JSON.parse(res.body)).toMatchObject({
        code: 'invalid_file_name',
        detail: expect.stringMatching(new RegExp(`${MAX_FILE_NAME_BYTES}`)),
      });
    }
    expect((await fetch(`${service().url}/upload-status?documentId=long-name`)).status).toBe(404);
  });

  it('ingests a document with the longest id and file name accepted', async () => {
    const id = 'i'.repeat(MAX_DOCUMENT_ID_BYTES);
    const name = 'é'.repeat(30) + 'x'.repeat(MAX_FILE_NAME_BYTES - 60 - 4) + '.txt';
    expect(Buffer.byteLength(name)).toBe(MAX_FILE_NAME_BYTES);
    expect((await upload([['documentId', id]], name)).status).toBe(202);
    const status = await waitForCompletion(service().url, id);
    expect(status).toMatchObject({ failed: false });
  });

  it('accepts a tag without a colon as a key without value, as KM does', async () => {
    const res = await upload([
      ['documentId', 'tagged'],
      ['tags', 'urgent'],
      ['tags', 'user:ann'],
      ['tags', 'empty:'],
    ]);
    expect(res.status).toBe(202);
    const status = await waitForCompletion(service().url, 'tagged');
    expect(status.tags).toEqual({ urgent: [null], user: ['ann'], empty: [null] });
  });
});

describe('upload spool left by a crash', () => {
  let dataDirectory: string;
  let service: Awaited<ReturnType<typeof startTestService>> | undefined;
  beforeAll(async () => {
    dataDirectory = await mkdtemp(join(tmpdir(), 'km-spool-'));
  });
  afterAll(async () => {
    await service?.dispose();
    await rm(dataDirectory, { recursive: true, force: true });
  });

  it('is removed at start; a folder of a process still running is kept', async () => {
    const spool = join(dataDirectory, 'tmp', 'uploads');
    // A pid that has certainly exited: a child that ran and ended.
    const deadPid = spawnSync(process.execPath, ['-e', '']).pid;
    const dead = `11111111-1111-4111-8111-111111111111.${deadPid}.${hostname()}`;
    const legacy = '22222222-2222-4222-8222-222222222222';
    // This process's own folder, as the service names it (pid and start nonce of this process).
    const alive = newSpoolFolderName();
    for (const folder of [dead, legacy, alive]) {
      await mkdir(join(spool, folder), { recursive: true });
      await writeFile(join(spool, folder, '0'), 'x'.repeat(1024));
    }
    service = await startTestService({ dataDirectory });
    expect(await readdir(spool)).toEqual([alive]);
  });
});
