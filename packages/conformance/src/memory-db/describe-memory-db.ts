import { describe, it } from 'vitest';
import { filterCases } from './filter-cases-suite.js';
import { indexLifecycleCases } from './index-lifecycle-cases.js';
import { memoryDbFixtures } from './memory-db-fixture.js';
import type { MemoryDbSuiteOptions, ResolvedMemoryDbSuite } from './memory-db-suite-options.js';
import { recordCases } from './record-cases.js';
import { relevanceCases } from './relevance-cases.js';

/**
 * The memory DB conformance suite: every rule of DESIGN §4, with expected filter results from
 * an in-memory oracle. Capabilities a connector lacks become named skips, or checks that the
 * connector throws.
 *
 * ```ts
 * import { describeMemoryDb } from '@km/conformance';
 * describeMemoryDb('my-db', { create: () => new MyMemoryDb(config), capabilities: { negatedFilters: true } });
 * ```
 */
export function describeMemoryDb(name: string, options: MemoryDbSuiteOptions): void {
  if (options.skip) {
    describe(`IMemoryDb conformance: ${name}`, () => {
      it.skip(`skipped: ${options.skip}`, () => undefined);
    });
    return;
  }
  const suite: ResolvedMemoryDbSuite = {
    create: async () => options.create(),
    vectorSearch: options.capabilities?.vectorSearch ?? true,
    negatedFilters: options.capabilities?.negatedFilters ?? true,
    createsIndexOnUpsert: options.capabilities?.createsIndexOnUpsert ?? false,
    visibilityTimeoutMs: options.visibilityTimeoutMs ?? 5000,
  };
  describe(`IMemoryDb conformance: ${name}`, () => {
    const fresh = memoryDbFixtures(options);
    indexLifecycleCases(suite, fresh);
    recordCases(suite, fresh);
    relevanceCases(suite, fresh);
    filterCases(suite, fresh);
  });
}
