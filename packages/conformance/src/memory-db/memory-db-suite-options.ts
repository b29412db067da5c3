import type { IMemoryDb } from '@km/core';

/** How the suite gets instances of the connector under test. */
export interface MemoryDbSuiteOptions {
  /**
   * A ready instance; called once per test. Tests isolate themselves with random index names.
   * What the suite expects comes from the instance's own `capabilities` (declared on its
   * driver): an unsupported feature must throw, never be ignored.
   */
  create: () => Promise<IMemoryDb> | IMemoryDb;
  /** Releases an instance after its test (close pools, files). */
  dispose?: (db: IMemoryDb) => Promise<void> | void;
  /** How long reads are polled for writes to become visible, in ms. @default 5000 */
  visibilityTimeoutMs?: number;
  /** A reason to skip the whole suite (e.g. "set KM_TEST_QDRANT_URL"); printed in the report. */
  skip?: string | false;
}

/** Options with their defaults applied. */
export interface ResolvedMemoryDbSuite {
  visibilityTimeoutMs: number;
}
