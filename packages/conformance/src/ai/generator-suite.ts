import { it } from 'vitest';
import { describeSuite } from '../util/describe-suite.js';

/** How an AI suite gets a generator, and releases it. */
export interface GeneratorSuiteOptions<G> {
  /** A new generator; every case gets its own. */
  create: () => Promise<G> | G;
  /** Releases a generator after its case. */
  dispose?: (generator: G) => Promise<void> | void;
  /** Timeout of each case, in ms. */
  timeoutMs?: number;
  /** A reason to skip the whole suite (shown as a named skip), or false. */
  skip?: string | false;
}

/** A case of an AI suite, run on a fresh generator; with `skip`, a named skip when it gives a reason. */
export type GeneratorCase<G> = ((generator: G) => Promise<void>) | { run: (generator: G) => Promise<void>; skip: string | false };

/**
 * Declares an AI suite: one test per case, named by its key, each on a fresh generator from
 * `options.create` that `options.dispose` releases after it, under `options.timeoutMs` (else
 * `defaultTimeoutMs`). A case whose `skip` gives a reason is skipped as `<name> [skipped: <reason>]`.
 */
export function describeGeneratorSuite<G>(
  title: string,
  options: GeneratorSuiteOptions<G>,
  defaultTimeoutMs: number,
  cases: Record<string, GeneratorCase<G>>,
): void {
  describeSuite(title, options.skip, () => {
    const timeout = options.timeoutMs ?? defaultTimeoutMs;
    for (const [name, testCase] of Object.entries(cases)) {
      const { run, skip } = typeof testCase === 'function' ? { run: testCase, skip: false } : testCase;
      (skip ? it.skip : it)(
        skip ? `${name} [skipped: ${skip}]` : name,
        async () => {
          const generator = await options.create();
          try {
            await run(generator);
          } finally {
            await options.dispose?.(generator);
          }
        },
        timeout,
      );
    }
  });
}
