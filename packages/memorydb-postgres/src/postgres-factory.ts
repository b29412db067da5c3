import { InvalidInputError } from '@km/core';
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
    {
      key: 'postgresHnswM',
      env: ['KM_POSTGRES_HNSW_M'],
      type: 'number',
      min: 2,
      default: 16,
      description: 'HNSW links per vector of new indexes (2–100)',
    },
    {
      key: 'postgresHnswEfConstruction',
      env: ['KM_POSTGRES_HNSW_EF_CONSTRUCTION'],
      type: 'number',
      min: 4,
      default: 64,
      description: 'HNSW candidates while building new indexes (at least 2 × m, at most 1000)',
    },
    {
      key: 'postgresEfSearch',
      env: ['KM_POSTGRES_EF_SEARCH'],
      type: 'number',
      min: 1,
      default: 100,
      description: 'HNSW candidates per search (raised to the limit; higher finds more of the true nearest, slower)',
    },
    {
      key: 'postgresIterativeScan',
      env: ['KM_POSTGRES_ITERATIVE_SCAN'],
      default: 'strict_order',
      description: 'how filtered vector searches keep scanning (pgvector 0.8+): strict_order, relaxed_order or off',
    },
    {
      key: 'postgresVectorIndex',
      env: ['KM_POSTGRES_VECTOR_INDEX'],
      default: 'create',
      description: "'create' gives new tables their HNSW index; 'defer' leaves it for `km upgrade` after a bulk import",
    },
    {
      key: 'postgresLexicalCandidates',
      env: ['KM_POSTGRES_LEXICAL_CANDIDATES'],
      type: 'number',
      min: 1,
      default: 1000,
      description: 'rows a lexical or hybrid search ranks at least on tables of 10,000 rows or more',
    },
    {
      key: 'postgresUpgradeTables',
      env: ['KM_POSTGRES_UPGRADE_TABLES'],
      default: 'false',
      description: "'true' gives existing tables the indexes they lack at start, in the background (as `km upgrade` does)",
    },
  ],
  async create(settings, { logger }) {
    const { PostgresMemoryDb } = await import('./postgres-memory-db.js');
    const db = new PostgresMemoryDb({
      connectionString: String(settings.postgresUrl),
      maxConnections: Number(settings.postgresMaxConnections),
      textSearchConfig: String(settings.postgresTextSearchConfig ?? 'english'),
      ...(settings.prefix !== undefined && { tablePrefix: String(settings.prefix) }),
      hnsw: { m: Number(settings.postgresHnswM ?? 16), efConstruction: Number(settings.postgresHnswEfConstruction ?? 64) },
      efSearch: Number(settings.postgresEfSearch ?? 100),
      iterativeScan: oneOf(
        settings.postgresIterativeScan ?? 'strict_order',
        ['strict_order', 'relaxed_order', 'off'] as const,
        'KM_POSTGRES_ITERATIVE_SCAN',
      ),
      createVectorIndex: oneOf(settings.postgresVectorIndex ?? 'create', ['create', 'defer'], 'KM_POSTGRES_VECTOR_INDEX') === 'create',
      lexicalCandidates: Number(settings.postgresLexicalCandidates ?? 1000),
      logger,
    });
    if (oneOf(settings.postgresUpgradeTables ?? 'false', ['true', 'false'], 'KM_POSTGRES_UPGRADE_TABLES') === 'true') {
      // In the background: the service answers meanwhile; an index build blocks writes to its table only.
      db.upgradeTables().then(
        (upgrades) => {
          for (const u of upgrades) if (u.created.length > 0) logger.info(`[postgres] upgraded ${u.table}: ${u.created.join(', ')}`);
        },
        (error: unknown) =>
          logger.error(
            `[postgres] upgrading the tables failed (run \`km upgrade\` to retry): ${error instanceof Error ? error.message : String(error)}`,
          ),
      );
    }
    return db;
  },
};

/** A setting that takes one of a few words; `invalid_argument` naming the variable otherwise. */
function oneOf<T extends string>(value: string | number, allowed: readonly T[], variable: string): T {
  const text = String(value).trim().toLowerCase();
  if (!(allowed as readonly string[]).includes(text)) {
    throw new InvalidInputError('invalid_argument', `${variable} must be ${allowed.join(' or ')}, got ${JSON.stringify(value)}`, {
      connector: 'postgres',
    });
  }
  return text as T;
}
