import type { IMemoryDb } from '@km/core';

/** What a memory DB can do; every flag has a default, so adding one breaks nobody. */
export interface MemoryDbSuiteCapabilities {
  /** Similarity search takes vectors and returns cosine relevance. @default true */
  vectorSearch?: boolean;
  /** Filters may hold NOT conditions; when false, the suite checks that they throw. @default true */
  negatedFilters?: boolean;
  /** `upsert` into a missing index creates it (else it must throw IndexNotFoundError). @default false */
  createsIndexOnUpsert?: boolean;
}

/** How the suite gets instances of the connector under test. */
export interface MemoryDbSuiteOptions {
  /** A ready instance; called once per test. Tests isolate themselves with random index names. */
  create: () => Promise<IMemoryDb> | IMemoryDb;
  /** Releases an instance after its test (close pools, files). */
  dispose?: (db: IMemoryDb) => Promise<void> | void;
  capabilities?: MemoryDbSuiteCapabilities;
  /** How long reads are polled for writes to become visible, in ms. @default 5000 */
  visibilityTimeoutMs?: number;
  /** A reason to skip the whole suite (e.g. "set KM_TEST_QDRANT_URL"); printed in the report. */
  skip?: string | false;
}

/** Options with their defaults applied. */
export interface ResolvedMemoryDbSuite {
  create: () => Promise<IMemoryDb>;
  vectorSearch: boolean;
  negatedFilters: boolean;
  createsIndexOnUpsert: boolean;
  visibilityTimeoutMs: number;
}
