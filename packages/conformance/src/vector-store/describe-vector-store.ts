import { describe, it } from 'vitest';
import { describeSuite } from '../util/describe-suite.js';
import { vectorStoreCaseGroups } from './vector-store-cases.js';
import { runVectorStoreCase } from './vector-store-fixture.js';
import type { VectorStoreSuiteOptions } from './vector-store-suite-options.js';

/** Long enough for a remote backend's writes, and for a failing read to be retried before it is reported. */
const CASE_TIMEOUT_MS = 60_000;

/**
 * The typed vector-store conformance suite: collections, records of every data and key type,
 * search scores and order for every distance function, every filter operator, injection
 * attempts and existing schemas, with expected results from the suite's own oracle. What to
 * expect comes from `store.capabilities` (key types, distances, data types, filter operators):
 * what a store lacks is a named skip, or a check that it throws `unsupported_filter`. Each test
 * gets a fresh store and collections with random names, deleted afterwards.
 *
 * ```ts
 * import { describeVectorStore } from '@km/conformance';
 * import { VectorStore } from '@km/collections';
 *
 * describeVectorStore({
 *   name: 'my-db',
 *   createStore: async () => new VectorStore(new MyVectorStoreDriver({ url: process.env.MY_DB_URL! })),
 *   skip: process.env.MY_DB_URL ? false : 'set MY_DB_URL to run against a server',
 * });
 * ```
 */
export function describeVectorStore(options: VectorStoreSuiteOptions): void {
  describeSuite(`vector store conformance: ${options.name}`, options.skip, () => {
    for (const [group, cases] of Object.entries(vectorStoreCaseGroups())) {
      describe(group, () => {
        for (const [rule, run] of Object.entries(cases)) {
          it(
            rule,
            (ctx) =>
              runVectorStoreCase(options, run, {
                visibilityTimeoutMs: options.visibilityTimeoutMs,
                skip: (reason) => ctx.skip(reason) as never,
              }),
            CASE_TIMEOUT_MS,
          );
        }
      });
    }
  });
}
