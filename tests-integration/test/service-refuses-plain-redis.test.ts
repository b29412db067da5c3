import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { exited, freePort, KM_BIN, kmEnv } from '../src/km-process.js';
import { whyNotPlainRedis } from '@km/memorydb-redis/testing';

// `km serve` on a Redis without the query engine (this machine's Debian Redis 7, which .ci/run
// starts): the start is refused with the connector's one-line reason, not a service that
// answers 503 to every request.
const url = process.env.KM_TEST_PLAIN_REDIS_URL ?? 'redis://127.0.0.1:6379';
const skip = await whyNotPlainRedis(url);
if (skip) console.log(`[km] skipped km serve on a Redis without the query engine: ${skip} (KM_TEST_PLAIN_REDIS_URL)`);

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

describe.skipIf(skip !== undefined)(`km serve with KM_MEMORY_DB=redis on a Redis without the query engine (${url})`, () => {
  it('exits with status 2 (a configuration km cannot use) and one line naming what the connector needs', { timeout: 60_000 }, async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'km-plain-redis-'));
    dirs.push(dataDir);
    const env = kmEnv({ KM_EMBEDDINGS: 'hashing', KM_MEMORY_DB: 'redis', KM_REDIS_URL: url });
    const child = spawn(process.execPath, [KM_BIN, 'serve', '--port', String(await freePort()), '--data-dir', dataDir], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    expect(await exited(child)).toBe(2);
    expect(stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/^km: \[redis\] km needs Redis 8, or Redis Stack \/ RediSearch 2\.4\+/),
    ]);
    expect(stdout).not.toContain('listening');
  });
});
