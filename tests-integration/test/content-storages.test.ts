import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeContentStorage } from '@km/conformance';
import { DiskContentStorage, MemoryContentStorage } from '@km/core';
import { afterAll } from 'vitest';

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

describeContentStorage('MemoryContentStorage', { create: () => new MemoryContentStorage() });
describeContentStorage('DiskContentStorage', {
  create: async () => {
    const d = await mkdtemp(join(tmpdir(), 'km-it-cs-'));
    dirs.push(d);
    return new DiskContentStorage({ directory: d });
  },
});
