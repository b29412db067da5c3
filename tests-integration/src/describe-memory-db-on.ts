import { describeMemoryDb, type MemoryDbSuiteOptions } from '@km/conformance';
import type { IMemoryDb } from '@km/core';
import { afterAll } from 'vitest';
import type { Backend } from './provision-search-backend.js';

/**
 * The conformance suite on a provisioned backend: `create` gets its URL; a missing backend
 * prints its one skip line and reports the suite skipped. The backend is stopped after the file.
 */
export function describeMemoryDbOn(
  backend: Backend,
  options: Omit<MemoryDbSuiteOptions, 'create' | 'skip'> & { create: (url: string) => IMemoryDb },
): void {
  afterAll(async () => {
    if ('stop' in backend) await backend.stop();
  });
  if ('skip' in backend) {
    console.log(`[km] skipped ${backend.name}: ${backend.skip}`);
    describeMemoryDb(backend.name, { create: () => undefined as never, skip: backend.skip });
    return;
  }
  const { create, ...rest } = options;
  describeMemoryDb(backend.name, { ...rest, create: () => create(backend.url) });
}
