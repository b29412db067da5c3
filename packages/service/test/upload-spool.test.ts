import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { startService } from '../src/index.js';
import { newSpoolFolderName, removeStaleSpool, uploadSpoolDirectory } from '../src/http/upload-spool.js';

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});
const tempDir = async () => {
  const d = await mkdtemp(join(tmpdir(), 'km-spool-'));
  dirs.push(d);
  return d;
};

describe('upload spool cleanup', () => {
  it('removes the folders of an earlier process with the same pid and host (a restarted container), keeps its own', async () => {
    const dir = await tempDir();
    const own = newSpoolFolderName();
    const restarted = `${randomUUID()}.${process.pid}.0badf00d.${hostname()}`; // same pid and host, another start
    const oldFormat = `${randomUUID()}.${process.pid}.${hostname()}`; // written before the nonce existed
    const foreignRecent = `${randomUUID()}.1.cafe0123.another-host`;
    const foreignOld = `${randomUUID()}.1.cafe0123.old-host`;
    for (const name of [own, restarted, oldFormat, foreignRecent, foreignOld, 'junk']) await mkdir(join(dir, name));
    const dayAgo = (Date.now() - 25 * 60 * 60 * 1000) / 1000;
    await utimes(join(dir, foreignOld), dayAgo, dayAgo);
    const removed = await removeStaleSpool(dir);
    expect(removed.sort()).toEqual([restarted, oldFormat, foreignOld, 'junk'].sort());
    expect((await readdir(dir)).sort()).toEqual([own, foreignRecent].sort());
  });

  it('reports what it cannot list instead of throwing', async () => {
    const dir = await tempDir();
    const notAFolder = join(dir, 'uploads');
    await writeFile(notAFolder, 'x');
    const warnings: string[] = [];
    expect(await removeStaleSpool(notAFolder, { warn: (name) => warnings.push(name) })).toEqual([]);
    expect(warnings).toEqual([notAFolder]);
    expect(await removeStaleSpool(join(dir, 'missing'), { warn: (name) => warnings.push(name) })).toEqual([]);
    expect(warnings).toHaveLength(1);
  });

  it('does not keep the service from starting, and runs before the memory starts', async () => {
    const dataDirectory = await tempDir();
    const spool = uploadSpoolDirectory(dataDirectory);
    await mkdir(join(spool, '..'), { recursive: true });
    await writeFile(spool, 'not a folder'); // readdir fails with ENOTDIR
    const logs: string[] = [];
    const service = await startService({
      overrides: { port: 0, dataDirectory, logLevel: 'info', embeddings: { provider: 'hashing' } },
      logDestination: new Writable({ write: (c: Buffer, _e, done) => (logs.push(...c.toString().split('\n').filter(Boolean)), done()) }),
    });
    try {
      expect((await fetch(`${service.url}/health`)).status).toBe(200);
      const warning = logs.findIndex((l) => l.includes('could not remove an upload spool folder'));
      expect(warning).toBeGreaterThanOrEqual(0);
      expect(JSON.parse(logs[warning]!)).toMatchObject({ level: 40 });
      expect(warning).toBeLessThan(logs.findIndex((l) => l.includes('km service listening')));
    } finally {
      await service.close();
    }
  });
});
