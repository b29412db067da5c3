import type { Logger, MemoryDbOptions } from '@km/core';
import { InvalidInputError } from '@km/core';
import type { RedisClientType } from 'redis';

/** A node-redis client with the search commands: `createClient()` of the `redis` package, whatever its RESP or extra modules. */
// biome-ignore lint/suspicious/noExplicitAny: any module, function, script, RESP and type mapping set is accepted.
export type KmRedisClient = RedisClientType<any, any, any, any, any>;

/** The client as the connector types it internally (default modules; replies are read tolerantly, RESP2 or RESP3). */
export type RedisClient = RedisClientType;

/** The vector index algorithms km creates: HNSW (approximate graph) or FLAT (exact brute force). */
export type RedisVectorAlgorithm = 'hnsw' | 'flat';

/** How to reach Redis and how to lay out search indexes. */
export interface RedisMemoryDbOptions extends MemoryDbOptions {
  /** A client you built and own (left open by `close()`); connected on first use when it is not yet open. */
  client?: KmRedisClient;
  /** Server URL when no `client` is given, e.g. `redis://127.0.0.1:6379` or `rediss://user:secret@host:6380/0`. */
  url?: string;
  /**
   * Prepended to every search index name (`{prefix}{index}`) and to the keys of its records
   * (`{prefix}{index}:{id}`), so km shares a server with other applications. Letters, digits, `_ - . :`.
   * @default 'km-'
   */
  indexPrefix?: string;
  /** Records per MULTI transaction; a larger batch is sent as several. @default 256 */
  batchSize?: number;
  /** The vector index of new search indexes. @default 'hnsw' */
  vectorAlgorithm?: RedisVectorAlgorithm;
  /** HNSW: edges per node (`M`). RediSearch's default (16) when unset. */
  hnswM?: number;
  /** HNSW: candidates while building the graph (`EF_CONSTRUCTION`). RediSearch's default (200) when unset. */
  hnswEfConstruction?: number;
  /** HNSW: candidates while searching (`EF_RUNTIME`). RediSearch's default (10) when unset. */
  hnswEfRuntime?: number;
  /** Connection attempts before an operation fails with a transient error. @default 3 */
  connectRetries?: number;
  /** Where connection errors of the client are written (they never escape as unhandled). */
  logger?: Logger;
}

/** The options the driver works with, checked, with defaults applied. */
export interface ResolvedRedisOptions {
  indexPrefix: string;
  batchSize: number;
  vectorAlgorithm: RedisVectorAlgorithm;
  hnsw: { m?: number | undefined; efConstruction?: number | undefined; efRuntime?: number | undefined };
}

const CONNECTOR = 'redis';

/** Checks the options and applies the defaults. */
export function resolveRedisOptions(options: RedisMemoryDbOptions): ResolvedRedisOptions {
  if (!options.client && !options.url) {
    throw new InvalidInputError('invalid_argument', 'give RedisMemoryDb a client or a url', { connector: CONNECTOR });
  }
  const indexPrefix = options.indexPrefix ?? 'km-';
  if (!/^[A-Za-z0-9_.:-]*$/.test(indexPrefix)) {
    throw new InvalidInputError('invalid_argument', `indexPrefix may hold letters, digits and _ - . : only, got "${indexPrefix}"`, {
      connector: CONNECTOR,
    });
  }
  const vectorAlgorithm = checkVectorAlgorithm(options.vectorAlgorithm ?? 'hnsw', 'vectorAlgorithm');
  for (const [name, value] of Object.entries({
    hnswM: options.hnswM,
    hnswEfConstruction: options.hnswEfConstruction,
    hnswEfRuntime: options.hnswEfRuntime,
  })) {
    if (value !== undefined && (!Number.isInteger(value) || value <= 0)) {
      throw new InvalidInputError('invalid_argument', `${name} must be a positive integer, got ${value}`, { connector: CONNECTOR });
    }
  }
  return {
    indexPrefix,
    batchSize: Math.max(1, Math.floor(options.batchSize ?? 256)),
    vectorAlgorithm,
    hnsw: { m: options.hnswM, efConstruction: options.hnswEfConstruction, efRuntime: options.hnswEfRuntime },
  };
}

/** `hnsw` or `flat` (any case); anything else is refused naming the setting it came from. */
export function checkVectorAlgorithm(value: string, setting: string): RedisVectorAlgorithm {
  const algorithm = value.trim().toLowerCase();
  if (algorithm !== 'hnsw' && algorithm !== 'flat') {
    throw new InvalidInputError('invalid_argument', `${setting} must be hnsw or flat, got "${value}"`, { connector: CONNECTOR });
  }
  return algorithm;
}
