import { validateFileName } from '@km/core';
import { MAX_FILE_NAME_BYTES } from '@km/core/connector';
import { describe, expect, it } from 'vitest';
import { syncFileName } from '../src/sync-file-name.js';

describe('syncFileName', () => {
  it('is the last segment of the key, unchanged when km accepts it', () => {
    expect(syncFileName('docs/Getting started (v2).md')).toBe('Getting started (v2).md');
    expect(syncFileName('Ünïcode – 文件.txt')).toBe('Ünïcode – 文件.txt');
    expect(syncFileName('deep/.hidden')).toBe('.hidden');
  });

  it('makes every key S3 or Azure allows a name km accepts as an uploaded file, keeping the extension', () => {
    const long = `${'é'.repeat(200)}.md`;
    const cases: Record<string, string> = {
      'a:b|c?.md': 'a_b_c_.md',
      'notes/v1..2.txt': 'v1.2.txt',
      'x/..km.state.json': '.km.state.json',
      'tab\there.txt': 'tab_here.txt',
      'dir/..': '_.',
    };
    for (const [key, name] of Object.entries(cases)) expect(syncFileName(key)).toBe(name);
    const shortened = syncFileName(`dir/${long}`);
    expect(shortened.endsWith('.md')).toBe(true);
    expect(Buffer.byteLength(shortened)).toBeLessThanOrEqual(MAX_FILE_NAME_BYTES);
    expect(Buffer.byteLength(shortened)).toBeGreaterThan(MAX_FILE_NAME_BYTES - 2);
    for (const key of [...Object.keys(cases), long, `${'x'.repeat(400)}`, `${'y'.repeat(300)}.${'z'.repeat(40)}`]) {
      expect(() => validateFileName(syncFileName(key), { uploaded: true })).not.toThrow();
    }
  });
});
