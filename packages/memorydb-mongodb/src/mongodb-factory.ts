import { type MemoryDbFactory, settingsAsOptions } from '@km/core/connector';

/**
 * How the service and `km worker` build a {@link MongoDbMemoryDb} from configuration
 * (`KM_MEMORY_DB=mongodb`). The connector and its driver load only when it is chosen.
 */
export const mongoDbMemoryDbFactory: MemoryDbFactory = {
  type: 'mongodb',
  description: 'MongoDB Atlas Vector Search (Atlas, atlas-local, or 8.2+ Community with mongot), shared by every worker (mongodb)',
  settings: [
    {
      key: 'mongodbUrl',
      env: ['KM_MONGODB_URL'],
      type: 'url',
      schemes: ['mongodb:', 'mongodb+srv:'],
      required: true,
      flag: '--mongodb-url',
      description: 'connection string, e.g. mongodb://127.0.0.1:27017/?directConnection=true',
    },
    { key: 'mongodbDatabase', env: ['KM_MONGODB_DATABASE'], default: 'km', description: "the database holding km's collections" },
    {
      key: 'mongodbNumCandidates',
      env: ['KM_MONGODB_NUM_CANDIDATES'],
      type: 'number',
      min: 1,
      description: 'numCandidates of $vectorSearch (default max(100, 10 × limit), at most 10000)',
    },
    { key: 'prefix', env: ['KM_MEMORY_DB_PREFIX'], description: "prepended to every collection km creates (default 'km-')" },
  ],
  async create(settings) {
    const { MongoDbMemoryDb } = await import('./mongodb-memory-db.js');
    const options = settingsAsOptions(settings, { url: 'mongodbUrl', database: 'mongodbDatabase', collectionPrefix: 'prefix' });
    const numCandidates = settings.mongodbNumCandidates;
    return new MongoDbMemoryDb({ ...options, ...(numCandidates !== undefined ? { numCandidates: Number(numCandidates) } : {}) });
  },
};
