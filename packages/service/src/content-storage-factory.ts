import { type IContentStorage, silentLogger } from '@km/core';
import { readSettings, type FactoryContext } from '@km/core/connector';
import type { ServiceConfig } from './config.js';
import { contentStorageFactoryOf } from './connectors.js';

/**
 * The shared content storage the configuration names, or undefined for `disk` (the builder's
 * DiskContentStorage in the data folder). The connector is imported only when configured.
 */
export async function contentStorageFromConfig(
  config: ServiceConfig['contentStorage'],
  context: FactoryContext = { logger: silentLogger },
): Promise<IContentStorage | undefined> {
  const factory = contentStorageFactoryOf(config.type);
  if (!factory) return undefined;
  return factory.create(readSettings(factory, { env: {}, section: config, sectionName: 'contentStorage' }), context);
}
