import { join, resolve } from 'node:path';
import { InvalidInputError, SimpleVectorDb, silentLogger, type IMemoryDb } from '@km/core';
import { readSettings, type FactoryContext } from '@km/core/connector';
import type { ServiceConfig } from './config.js';
import { memoryDbFactory } from './connectors.js';
import { EMBEDDED_MEMORY_DB, memoryDbTypes } from './memory-db-types.js';

/**
 * The shared memory DB the configuration names first, or undefined for the embedded
 * SimpleVectorDb. Each connector is imported only when configured: a service on the defaults
 * does not load the Postgres, Qdrant or Elasticsearch clients. With several types
 * (`postgres,qdrant`) use {@link memoryDbsFromConfig}, which builds them all.
 */
export async function memoryDbFromConfig(
  config: ServiceConfig['memoryDb'],
  context: FactoryContext = { logger: silentLogger },
): Promise<IMemoryDb | undefined> {
  const [first] = typesOf(config);
  return first === undefined ? undefined : buildMemoryDb(first, config, context);
}

/**
 * Every memory DB the configuration names, in order (records are written to all, searches read
 * the first), or an empty list on the defaults (the builder keeps its embedded SimpleVectorDb).
 * `simple` among several is the SimpleVectorDb of `{dataDirectory}/vectors`, where the
 * embedded default keeps its records. If one connector cannot be built, those already built are
 * closed before the error is thrown.
 */
export async function memoryDbsFromConfig(
  config: ServiceConfig['memoryDb'],
  context: FactoryContext & { dataDirectory?: string } = { logger: silentLogger },
): Promise<IMemoryDb[]> {
  const types = typesOf(config);
  if (types.length === 1 && types[0] === EMBEDDED_MEMORY_DB) return [];
  const built: IMemoryDb[] = [];
  try {
    for (const type of types) {
      if (type === EMBEDDED_MEMORY_DB) {
        const directory = join(resolve(context.dataDirectory ?? './km-data'), 'vectors');
        built.push(new SimpleVectorDb({ directory, logger: context.logger }));
      } else {
        built.push((await buildMemoryDb(type, config, context))!);
      }
    }
  } catch (error) {
    for (const db of built) await (db as { close?: () => Promise<void> }).close?.().catch(() => undefined);
    throw error;
  }
  return built;
}

/** The checked types of a memory DB section (a single `simple` yields `['simple']`). */
function typesOf(config: ServiceConfig['memoryDb']): string[] {
  const chosen = memoryDbTypes(config.type);
  if ('error' in chosen) throw new InvalidInputError('invalid_argument', `configuration: ${chosen.error}`);
  return chosen.types;
}

async function buildMemoryDb(type: string, config: ServiceConfig['memoryDb'], context: FactoryContext): Promise<IMemoryDb | undefined> {
  const factory = memoryDbFactory(type);
  if (!factory) return undefined;
  return factory.create(readSettings(factory, { env: {}, section: config, sectionName: 'memoryDb' }), context);
}
