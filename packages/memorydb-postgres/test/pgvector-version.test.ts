import { isKmError } from '@km/core';
import { describe, expect, it } from 'vitest';
import { pgvectorFeatures } from '../src/pgvector-version.js';

describe('which pgvector the connector accepts, and how it searches on it', () => {
  it('0.8 and later search with hnsw.iterative_scan', () => {
    expect(pgvectorFeatures('0.8.0')).toEqual({ version: '0.8.0', iterativeScan: true, halfvec: true });
    expect(pgvectorFeatures('0.8.7').iterativeScan).toBe(true);
    expect(pgvectorFeatures('1.0.0').iterativeScan).toBe(true);
    expect(pgvectorFeatures('0.10.2').iterativeScan).toBe(true); // numeric, not string, comparison
  });

  it('0.5 to 0.7 search without it', () => {
    for (const version of ['0.5.0', '0.5.1', '0.6.2', '0.7.4']) expect(pgvectorFeatures(version).iterativeScan, version).toBe(false);
  });

  it('0.7 and later index vectors of 2001 to 4000 dimensions as halfvec; 0.5 and 0.6 cannot', () => {
    for (const version of ['0.7.0', '0.7.4', '0.8.6']) expect(pgvectorFeatures(version).halfvec, version).toBe(true);
    for (const version of ['0.5.0', '0.6.2']) expect(pgvectorFeatures(version).halfvec, version).toBe(false);
  });

  it('older, unparsable or missing versions are refused with not_configured naming the version needed', () => {
    for (const version of ['0.4.4', '0.1.0', 'dev', undefined]) {
      let error: unknown;
      try {
        pgvectorFeatures(version);
      } catch (e) {
        error = e;
      }
      expect(isKmError(error, 'not_configured'), String(version)).toBe(true);
      expect((error as Error).message).toMatch(/pgvector >= 0\.5\.0/);
    }
  });
});
