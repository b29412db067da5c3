import { describe, expect, it } from 'vitest';
import { formatBytes, formatTime } from '../src/format.js';

describe('console formats', () => {
  it('gives sizes in B, KB and MB', () => {
    expect([formatBytes(0), formatBytes(1023), formatBytes(1536), formatBytes(3 * 1024 * 1024)]).toEqual([
      '0 B',
      '1023 B',
      '1.5 KB',
      '3.0 MB',
    ]);
  });

  it('gives a time as a local date, and text that is not a date as is', () => {
    expect(formatTime('2026-11-29T15:44:57.195Z')).toBe(new Date('2026-11-29T15:44:57.195Z').toLocaleString());
    expect(formatTime('soon')).toBe('soon');
  });
});
