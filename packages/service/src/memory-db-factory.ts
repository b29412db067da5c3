import { silentLogger, type IMemoryDb } from '@km/core';
import { readSettings, type FactoryContext } from '@km/core/connector';
import type { ServiceConfig } from './config.js';
import { memoryDbFactory } from './connectors.js';

/**
 * The shared memory DB the configuration names, or undefined for the embedded SimpleVectorDb.
 * Each connector is imported only when configured: a service on the defaults does not load
 * the Postgres, Qdrant or Elasticsearch clients.
 */
export async function memoryDbFromConfig(
  config: ServiceConfig['memoryDb'],
  context: FactoryContext = { logger: silentLogger },
): Promise<IMemoryDb | undefined> {
  const factory = memoryDbFactory(config.type);
  if (!factory) return undefined;
  return factory.create(readSettings(factory, { env: {}, section: config, sectionName: 'memoryDb' }), context);
}
