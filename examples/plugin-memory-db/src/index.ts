import type { KmPlugin } from '@km/core/connector';
import { jsonFileMemoryDbFactory } from './json-file-memory-db-factory.js';

export { JsonFileMemoryDb, type JsonFileMemoryDbOptions } from './json-file-memory-db.js';
export { JsonFileMemoryDbDriver } from './json-file-memory-db-driver.js';
export { jsonFileMemoryDbFactory } from './json-file-memory-db-factory.js';

/** What `km serve --plugin km-memorydb-jsonfile` loads: this package's factories. */
export const kmPlugin: KmPlugin = { memoryDbs: [jsonFileMemoryDbFactory] };
