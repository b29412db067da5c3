import type { IMemoryDb } from '@km/core';
import { DEFAULT_CAPABILITIES } from '@km/core/connector';
import { eventually, randomName } from '../util/async.js';
import type { MemoryDbFixture } from './memory-db-fixture.js';
import type { MemoryDbSuiteOptions } from './memory-db-suite-options.js';

/** What one case gets: a fresh instance and index, the means to skip and to wait for writes. */
export interface MemoryDbCaseContext extends MemoryDbFixture {
  /** Ends the case as a named skip. */
  skip(reason: string): never;
  /**
   * Retries `assertion` until writes are visible. Wait for what was written to show (a count, a
   * marker record), then assert the rule once: a wrong answer fails at once, not after the timeout.
   */
  wait(assertion: () => Promise<void> | void): Promise<void>;
}

/** One case: a readable rule name maps to a function that checks it. */
export type MemoryDbCase = (t: MemoryDbCaseContext) => Promise<void>;

/** How a case is run. */
export interface MemoryDbCaseSettings {
  /** @default 5000 */
  visibilityTimeoutMs?: number;
  skip(reason: string): never;
}

/** Runs one case on a fresh instance and index; deletes the index and disposes of the instance afterwards. */
export async function runMemoryDbCase(options: MemoryDbSuiteOptions, run: MemoryDbCase, settings: MemoryDbCaseSettings): Promise<void> {
  const db: IMemoryDb = await options.create();
  const index = randomName('km-conf');
  try {
    await run({
      db,
      index,
      capabilities: { ...DEFAULT_CAPABILITIES, ...db.capabilities },
      skip: settings.skip,
      wait: (assertion) => eventually(assertion, settings.visibilityTimeoutMs ?? 5000),
    });
  } finally {
    await db.deleteIndex(index).catch(() => undefined);
    await options.dispose?.(db);
  }
}

/** A compact description of what a case used, for failure messages. */
export function described(label: string, value: unknown): string {
  return `${label}: ${JSON.stringify(value, (_, v) => (v instanceof Float32Array ? Array.from(v) : v))}`;
}
