import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { folderSource } from '../src/index.js';
import { useTempDirs } from './helpers.js';

// A platform where a recursive fs.watch is refused: the folder source polls its listing instead.
vi.mock('node:fs', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs')>();
  return {
    ...fs,
    watch: () => {
      throw Object.assign(new Error('recursive watch is not supported here'), { code: 'ERR_FEATURE_UNAVAILABLE_ON_PLATFORM' });
    },
  };
});

const tempDir = useTempDirs('km-watch-poll-');

describe('folderSource watch without fs.watch', () => {
  it('polls the listing and calls onChange when a file changes, not when nothing does', async () => {
    const root = join(await tempDir(), 'root');
    await mkdir(root, { recursive: true });
    await writeFile(join(root, 'a.md'), 'first');
    const source = folderSource({ root, watchPollMs: 50, watchDebounceMs: 10 });
    let changes = 0;
    const stop = await source.watch!(() => {
      changes++;
    });
    try {
      // Several polls of an unchanged folder call nothing.
      await new Promise((r) => setTimeout(r, 300));
      expect(changes).toBe(0);
      await writeFile(join(root, 'a.md'), 'second');
      await vi.waitFor(() => expect(changes).toBeGreaterThan(0), { timeout: 10_000, interval: 50 });
    } finally {
      await stop();
    }
  });
});
