import { folderSource, siteSource, type SyncSource } from '@km/core';
import type { SyncSourceRequest } from '@km/wire';
import { HttpProblem } from '../http/problem-details.js';
import type { SyncSourceType } from './sync-request.js';
import { resolveSyncFolder } from './sync-roots.js';

/** What the service lets sync jobs read. */
export interface SyncSourcePolicy {
  /** Folders a folder sync may read (`KM_SYNC_ROOTS`). */
  roots: readonly string[];
  /** Web syncs may reach private addresses (`KM_WEB_ALLOW_PRIVATE_NETWORKS`). */
  allowPrivateNetworks: boolean;
}

/** The source types the service syncs. */
export const SYNC_SOURCE_TYPES: readonly SyncSourceType[] = ['folder', 'web'];

/**
 * The source a checked request names, within the service's policy: a folder only under the
 * sync roots (its real path), a site only through the web fetcher's address guard.
 */
export async function openSyncSource(request: SyncSourceRequest, policy: SyncSourcePolicy): Promise<SyncSource> {
  switch (request.type) {
    case 'folder': {
      const root = await resolveSyncFolder(request.path, policy.roots);
      return folderSource({
        root,
        ...(request.include ? { include: request.include } : {}),
        ...(request.exclude ? { exclude: request.exclude } : {}),
      });
    }
    case 'web':
      return siteSource({
        url: request.url,
        ...(request.sitemap !== undefined ? { sitemap: request.sitemap } : {}),
        ...(request.maxPages !== undefined ? { maxPages: request.maxPages } : {}),
        allowPrivateAddresses: policy.allowPrivateNetworks,
      });
    default:
      throw new HttpProblem(400, `this service does not sync sources of type ${JSON.stringify(request.type)}`, 'unsupported_source');
  }
}
