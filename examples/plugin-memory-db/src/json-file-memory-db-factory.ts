import type { MemoryDbFactory } from '@km/core/connector';

/**
 * How `km serve` and `km worker` build a {@link JsonFileMemoryDb}: `KM_MEMORY_DB=jsonfile`, the
 * folder from `memoryDb.jsonFileDirectory`, `KM_JSONFILE_DIR` or `--jsonfile-dir`.
 */
export const jsonFileMemoryDbFactory: MemoryDbFactory = {
  type: 'jsonfile',
  description: 'records in one JSON file per index (km-memorydb-jsonfile, an example plugin)',
  settings: [
    {
      key: 'jsonFileDirectory',
      env: ['KM_JSONFILE_DIR'],
      default: './km-jsonfile',
      flag: '--jsonfile-dir',
      description: 'the folder of the JSON files',
    },
  ],
  // The connector is imported only when configured, as a connector with an SDK would import it.
  create: async (settings) =>
    new (await import('./json-file-memory-db.js')).JsonFileMemoryDb({ directory: String(settings.jsonFileDirectory) }),
};
