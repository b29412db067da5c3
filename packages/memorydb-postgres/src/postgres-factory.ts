import type { MemoryDbFactory } from '@km/core/connector';

/**
 * How the service and `km worker` build a {@link PostgresMemoryDb} from configuration
 * (`KM_MEMORY_DB=postgres`). The connector and `pg` load only when it is chosen.
 */
export const postgresMemoryDbFactory: MemoryDbFactory = {
  type: 'postgres',
  description: 'PostgreSQL with pgvector, shared by every worker (pg)',
  settings: [
    {
      key: 'postgresUrl',
      env: ['KM_POSTGRES_URL'],
      type: 'url',
      schemes: ['postgres:', 'postgresql:'],
      required: true,
      flag: '--postgres-url',
      description: 'PostgreSQL with pgvector, e.g. postgres://user:pass@host:5432/db',
    },
    {
      key: 'postgresMaxConnections',
      env: ['KM_POSTGRES_MAX_CONNECTIONS'],
      type: 'number',
      min: 1,
      default: 10,
      description: "connections of this process's pool",
    },
    {
      key: 'postgresTextSearchConfig',
      env: ['KM_POSTGRES_TEXT_SEARCH_CONFIG'],
      default: 'english',
      description: "text search configuration of new tables' full-text column (lexical and hybrid search), e.g. english or simple",
    },
    { key: 'prefix', env: ['KM_MEMORY_DB_PREFIX'], description: "prepended to every table km creates (default 'km-')" },
  ],
  async create(settings, { logger }) {
    const { PostgresMemoryDb } = await import('./postgres-memory-db.js');
    return new PostgresMemoryDb({
      connectionString: String(settings.postgresUrl),
      maxConnections: Number(settings.postgresMaxConnections),
      textSearchConfig: String(settings.postgresTextSearchConfig ?? 'english'),
      ...(settings.prefix !== undefined && { tablePrefix: String(settings.prefix) }),
      logger,
    });
  },
};
