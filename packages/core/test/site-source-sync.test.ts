import { afterEach, describe, expect, it } from 'vitest';
import { HashingEmbeddingGenerator, KernelMemoryBuilder, ReservedTags, siteSource, silentLogger, syncDocumentId } from '../src/index.js';
import { page, startTestSite, type TestSite } from './site-source-server.js';
import { useTempDirs } from './helpers.js';

const tempDir = useTempDirs('km-sync-site-');
let site: TestSite | undefined;
afterEach(async () => {
  await site?.close();
  site = undefined;
});

describe('memory.sync with a site source', () => {
  it('syncs a crawled site; a changed page is 1 updated, a removed page 1 deleted', async () => {
    site = await startTestSite({
      '/docs/': page('Docs home', 'alpha', 'beta', 'gamma'),
      '/docs/alpha': page('Alpha is about aardvarks'),
      '/docs/beta': page('Beta is about badgers'),
      '/docs/gamma': { body: page('Gamma is about gazelles'), etag: '"g1"' },
    });
    const memory = new KernelMemoryBuilder()
      .withDataDirectory(await tempDir())
      .withEmbeddingGenerator(new HashingEmbeddingGenerator())
      .withLogger(silentLogger)
      .build();
    const source = siteSource({ url: `${site.origin}/docs/`, allowPrivateAddresses: true });

    const first = await memory.sync(source);
    expect(first).toMatchObject({ kind: 'web', source: `${site.origin}/docs/`, listed: 4, added: 4, failed: 0, complete: true });
    const betaId = syncDocumentId(source.id, `${site.origin}/docs/beta`);
    const beta = await memory.getDocumentStatus(betaId);
    expect(beta?.tags?.[ReservedTags.syncItem]).toEqual([`${site.origin}/docs/beta`]);

    site.resources.set('/docs/alpha', { body: page('Alpha is now about anteaters') });
    const second = await memory.sync(source);
    expect(second).toMatchObject({ listed: 4, added: 0, updated: 1, unchanged: 3, deleted: 0, failed: 0 });
    const found = await memory.search('anteaters', { limit: 1 });
    expect(found.results[0]?.documentId).toBe(syncDocumentId(source.id, `${site.origin}/docs/alpha`));

    // The page is gone (404), the home page still links to it.
    site.resources.delete('/docs/beta');
    const third = await memory.sync(source);
    expect(third).toMatchObject({ listed: 3, added: 0, updated: 0, unchanged: 3, deleted: 1, failed: 0 });
    expect(await memory.getDocumentStatus(betaId)).toBeFalsy();
  });
});
