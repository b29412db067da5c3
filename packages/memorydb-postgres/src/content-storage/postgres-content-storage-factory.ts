import type { ContentStorageFactory } from '@km/core/connector';

/**
 * How the service and `km worker` build a {@link PostgresContentStorage} from configuration
 * (`KM_CONTENT_STORAGE=postgres`): the same `KM_POSTGRES_URL` as the memory DB by default, tables
 * `{prefix}files` and `{prefix}file_chunks`. The storage and `pg` load only when it is chosen.
 */
export const postgresContentStorageFactory: ContentStorageFactory = {
  type: 'postgres',
  description: 'PostgreSQL tables, files in 1 MiB bytea chunks, shared by every worker (pg)',
  settings: [
    {
      key: 'postgresUrl',
      env: ['KM_POSTGRES_URL'],
      type: 'url',
      schemes: ['postgres:', 'postgresql:'],
      required: true,
      // No flag: --postgres-url belongs to the memory DB factory, and the variable serves both.
      description: 'PostgreSQL holding the files, e.g. postgres://user:pass@host:5432/db (pgvector not needed)',
    },
    {
      key: 'postgresContentTablePrefix',
      env: ['KM_POSTGRES_CONTENT_TABLE_PREFIX'],
      default: 'km_',
      description: 'prefix of the content tables: {prefix}files, {prefix}file_chunks, {prefix}file_versions',
    },
    {
      key: 'postgresMaxConnections',
      env: ['KM_POSTGRES_MAX_CONNECTIONS'],
      type: 'number',
      min: 1,
      default: 10,
      description: "connections of this process's content storage pool",
    },
  ],
  async create(settings, { logger }) {
    const { PostgresContentStorage } = await import('./postgres-content-storage.js');
    return new PostgresContentStorage({
      connectionString: String(settings.postgresUrl),
      tablePrefix: String(settings.postgresContentTablePrefix ?? 'km_'),
      maxConnections: Number(settings.postgresMaxConnections ?? 10),
      logger,
    });
  },
};
