import { KmError } from '@km/core';

/** Oldest pgvector the connector runs on: HNSW indexes and `hnsw.ef_search` came in 0.5.0. */
export const MIN_PGVECTOR_VERSION = '0.5.0';
/** First pgvector with `hnsw.iterative_scan` (filtered searches keep scanning until `limit` rows match). */
export const ITERATIVE_SCAN_VERSION = '0.8.0';
/** First pgvector with `halfvec`, whose HNSW indexes take up to 4000 dimensions. */
export const HALFVEC_VERSION = '0.7.0';

/** What the connector does with the pgvector installed in the database. */
export interface PgvectorFeatures {
  /** The `extversion`, e.g. `0.8.0`. */
  version: string;
  /** Searches set `hnsw.iterative_scan = strict_order`; without it a filtered search may return fewer than `limit` matches. */
  iterativeScan: boolean;
  /** Vectors of 2001 to 4000 dimensions get an HNSW index on their `halfvec` cast. */
  halfvec: boolean;
}

/** `0.7.4` → [0, 7, 4]; undefined when it is not a version. */
export function parseVersion(version: string): number[] | undefined {
  const match = /^(\d+)\.(\d+)(?:\.(\d+))?/.exec(version.trim());
  return match ? [Number(match[1]), Number(match[2]), Number(match[3] ?? 0)] : undefined;
}

/** Negative, zero or positive as `a` is older than, equal to or newer than `b`. */
export function compareVersions(a: number[], b: number[]): number {
  for (let i = 0; i < 3; i++) if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) - (b[i] ?? 0);
  return 0;
}

/**
 * Decides how to use the pgvector found at connect, or refuses it with `not_configured`
 * naming the version needed.
 *
 * ```ts
 * pgvectorFeatures('0.7.4'); // { version: '0.7.4', iterativeScan: false, halfvec: true }
 * pgvectorFeatures('0.4.4'); // throws: needs pgvector >= 0.5.0
 * ```
 */
export function pgvectorFeatures(version: string | undefined): PgvectorFeatures {
  if (version === undefined) {
    throw new KmError(
      'not_configured',
      `the pgvector extension ("vector") is not installed in this database; km needs pgvector >= ${MIN_PGVECTOR_VERSION}`,
      {
        connector: 'postgres',
      },
    );
  }
  const parsed = parseVersion(version);
  if (!parsed || compareVersions(parsed, parseVersion(MIN_PGVECTOR_VERSION)!) < 0) {
    throw new KmError(
      'not_configured',
      `pgvector ${version} is too old: km needs pgvector >= ${MIN_PGVECTOR_VERSION} (HNSW indexes), ideally >= ${ITERATIVE_SCAN_VERSION}; run ALTER EXTENSION vector UPDATE`,
      { connector: 'postgres' },
    );
  }
  return {
    version,
    iterativeScan: compareVersions(parsed, parseVersion(ITERATIVE_SCAN_VERSION)!) >= 0,
    halfvec: compareVersions(parsed, parseVersion(HALFVEC_VERSION)!) >= 0,
  };
}
