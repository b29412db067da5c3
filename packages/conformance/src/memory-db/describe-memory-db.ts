import { describe, it } from 'vitest';
import { runMemoryDbCase } from './memory-db-case.js';
import { MEMORY_DB_RULE_CASES } from './memory-db-rule-cases.js';
import { capabilityCases } from './capability-cases.js';
import { filterCases } from './filter-cases-suite.js';
import { hybridCases } from './hybrid-cases.js';
import { indexLifecycleCases } from './index-lifecycle-cases.js';
import { lexicalCases } from './lexical-cases.js';
import { memoryDbFixtures } from './memory-db-fixture.js';
import type { MemoryDbSuiteOptions, ResolvedMemoryDbSuite } from './memory-db-suite-options.js';
import { recordCases } from './record-cases.js';
import { relevanceCases } from './relevance-cases.js';
import { updateTagsCases } from './update-tags-cases.js';

/**
 * The memory DB conformance suite: every rule of DESIGN §4, with expected filter results from
 * an in-memory oracle. What to expect comes from the instance's `capabilities`, declared once on
 * its driver: a capability it lacks becomes a named skip, or a check that it throws.
 *
 * ```ts
 * import { describeMemoryDb } from '@km/conformance';
 * describeMemoryDb('my-db', { create: () => new MemoryDb(new MyDriver(config)) });
 * ```
 */
export function describeMemoryDb(name: string, options: MemoryDbSuiteOptions): void {
  if (options.skip) {
    describe(`IMemoryDb conformance: ${name}`, () => {
      it.skip(`skipped: ${options.skip}`, () => undefined);
    });
    return;
  }
  const suite: ResolvedMemoryDbSuite = { visibilityTimeoutMs: options.visibilityTimeoutMs ?? 5000 };
  describe(`IMemoryDb conformance: ${name}`, () => {
    const fresh = memoryDbFixtures(options);
    indexLifecycleCases(suite, fresh);
    recordCases(suite, fresh);
    relevanceCases(suite, fresh);
    filterCases(suite, fresh);
    lexicalCases(suite, fresh);
    hybridCases(suite, fresh);
    capabilityCases(suite, fresh);
    updateTagsCases(suite, fresh);
    describe('stored semantics', () => {
      for (const [rule, run] of Object.entries(MEMORY_DB_RULE_CASES)) {
        it(rule, (ctx) =>
          runMemoryDbCase(options, run, {
            visibilityTimeoutMs: suite.visibilityTimeoutMs,
            skip: (reason) => {
              ctx.skip(reason);
              throw new Error('unreachable');
            },
          }),
        );
      }
    });
  });
}
