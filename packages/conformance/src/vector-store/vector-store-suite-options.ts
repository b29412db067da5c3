import type { RecordDefinition } from '@km/core';
import type { VectorStore } from '@km/collections';

/** How {@link describeVectorStore} gets stores of the connector under test. */
export interface VectorStoreSuiteOptions {
  /** Shown in the report, e.g. `postgres (PGlite)`. */
  name: string;
  /**
   * A fresh store (the `VectorStore` of `@km/collections` over the connector's driver); called once per test, and
   * closed by the suite after it. What the suite expects comes from `store.capabilities`.
   */
  createStore(): Promise<VectorStore>;
  /** A reason to skip the whole suite (one line, e.g. "set KM_TEST_QDRANT_URL"). */
  skip?: string | false;
  /**
   * How long reads are retried for writes to become visible, in ms (backends whose searches
   * lag their writes, such as MongoDB Atlas Search or Azure AI Search). @default 5000
   */
  visibilityTimeoutMs?: number;
  /**
   * A table or collection made by the backend's own DDL, with its own column names and key
   * type, and the definition that maps onto it through `storageName`. Without it the
   * existing-schema cases are a named skip.
   */
  existingSchema?: {
    definition: RecordDefinition;
    /** Creates it natively (e.g. `CREATE TABLE` with other column names) under this name. */
    create(collection: string): Promise<void>;
  };
}
