import { InvalidInputError, silentLogger, type IMemoryDb } from '@km/core';
import { readSettings, type FactoryContext } from '@km/core/connector';
import type { ServiceConfig } from './config.js';
import { BUILT_IN_CONNECTORS, memoryDbFactory, type Connectors } from './connectors.js';
import { EMBEDDED_MEMORY_DB, memoryDbTypes } from './memory-db-types.js';
import { simpleVectorDbFactory } from './simple-vector-db-factory.js';

/**
 * The shared memory DB the configuration names first, or undefined for the embedded
 * SimpleVectorDb. Each connector is imported only when configured: a service on the defaults
 * does not load the Postgres, Qdrant or Elasticsearch clients. With several types
 * (`postgres,qdrant`) use {@link memoryDbsFromConfig}, which builds them all.
 */
export async function memoryDbFromConfig(
  config: ServiceConfig['memoryDb'],
  context: FactoryContext = { logger: silentLogger },
  connectors: Connectors = BUILT_IN_CONNECTORS,
): Promise<IMemoryDb | undefined> {
  const [first] = typesOf(config, connectors);
  return first === undefined ? undefined : buildMemoryDb(first, config, context, connectors);
}

/**
 * Every memory DB the configuration names, in order (records are written to all, searches read
 * the first), or an empty list on the defaults (the builder keeps its embedded SimpleVectorDb;
 * with a `simple*` setting such as KM_SIMPLE_VECTOR_DB_QUANTIZATION it is built here).
 * `simple` among several is the SimpleVectorDb of `{dataDirectory}/vectors`, where the
 * embedded default keeps its records. If one connector cannot be built, those already built are
 * closed before the error is thrown.
 */
export async function memoryDbsFromConfig(
  config: ServiceConfig['memoryDb'],
  context: FactoryContext & { dataDirectory?: string } = { logger: silentLogger },
  connectors: Connectors = BUILT_IN_CONNECTORS,
): Promise<IMemoryDb[]> {
  const types = typesOf(config, connectors);
  const simpleSettings = readSettings(simpleVectorDbFactory, { env: {}, section: config, sectionName: 'memoryDb' });
  const tuned = Object.values(simpleSettings).some((value) => value !== undefined && value !== '');
  if (types.length === 1 && types[0] === EMBEDDED_MEMORY_DB && !tuned) return [];
  const built: IMemoryDb[] = [];
  try {
    for (const type of types) {
      if (type === EMBEDDED_MEMORY_DB) {
        built.push(await simpleVectorDbFactory.create(simpleSettings, context));
      } else {
        built.push((await buildMemoryDb(type, config, context, connectors))!);
      }
    }
  } catch (error) {
    for (const db of built) await (db as { close?: () => Promise<void> }).close?.().catch(() => undefined);
    throw error;
  }
  return built;
}

/** The checked types of a memory DB section (a single `simple` yields `['simple']`). */
function typesOf(config: ServiceConfig['memoryDb'], connectors: Connectors): string[] {
  const chosen = memoryDbTypes(config.type, connectors);
  if ('error' in chosen) throw new InvalidInputError('invalid_argument', `configuration: ${chosen.error}`);
  return chosen.types;
}

async function buildMemoryDb(
  type: string,
  config: ServiceConfig['memoryDb'],
  context: FactoryContext,
  connectors: Connectors,
): Promise<IMemoryDb | undefined> {
  const factory = memoryDbFactory(type, connectors);
  if (!factory) return undefined;
  return factory.create(readSettings(factory, { env: {}, section: config, sectionName: 'memoryDb' }), context);
}
