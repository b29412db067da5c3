import { MemoryDb, type MemoryDbOptions } from '@km/core';
import { JsonFileMemoryDbDriver } from './json-file-memory-db-driver.js';

/** Options of {@link JsonFileMemoryDb}. */
export interface JsonFileMemoryDbOptions extends MemoryDbOptions {
  /** The folder that holds one `{index}.json` per index. */
  directory: string;
}

/**
 * A memory DB in JSON files: core's `MemoryDb` over {@link JsonFileMemoryDbDriver}.
 *
 * ```ts
 * const db = new JsonFileMemoryDb({ directory: './km-jsonfile' });
 * ```
 */
export class JsonFileMemoryDb extends MemoryDb<JsonFileMemoryDbDriver> {
  constructor({ directory, ...options }: JsonFileMemoryDbOptions) {
    super(new JsonFileMemoryDbDriver(directory), options);
  }
}
