import { type IContentStorage, silentLogger } from '@km/core';
import { readSettings, type FactoryContext } from '@km/core/connector';
import type { ServiceConfig } from './config.js';
import { BUILT_IN_CONNECTORS, contentStorageFactoryOf, type Connectors } from './connectors.js';

/**
 * The shared content storage the configuration names, or undefined for `disk` (the builder's
 * DiskContentStorage in the data folder). The connector is imported only when configured.
 */
export async function contentStorageFromConfig(
  config: ServiceConfig['contentStorage'],
  context: FactoryContext = { logger: silentLogger },
  connectors: Connectors = BUILT_IN_CONNECTORS,
): Promise<IContentStorage | undefined> {
  const factory = contentStorageFactoryOf(config.type, connectors);
  if (!factory) return undefined;
  return factory.create(readSettings(factory, { env: {}, section: config, sectionName: 'contentStorage' }), context);
}
