import type { PGlite, PGliteOptions } from '@electric-sql/pglite';

/** The initialised data folder, made once per process and kept on `globalThis` (test runners may load this module more than once). */
const shared = globalThis as { kmPgliteTemplate?: Promise<Blob> };

/**
 * A new, empty in-memory PGlite database, as `PGlite.create(options)` gives, in about a third
 * of its time: PGlite's initdb (about 4 s on a 2-core machine) runs once per process, and each
 * database then starts from a copy of that initialised data folder. Each call is a database of
 * its own; close it after.
 *
 * ```ts
 * import { vector } from '@electric-sql/pglite-pgvector';
 * const db = await freshPglite({ extensions: { vector } });
 * ```
 */
export async function freshPglite(options: Omit<PGliteOptions, 'dataDir' | 'loadDataDir'> = {}): Promise<PGlite> {
  const { PGlite } = await import('@electric-sql/pglite');
  shared.kmPgliteTemplate ??= (async () => {
    const template = await PGlite.create();
    try {
      return (await template.dumpDataDir('none')) as Blob;
    } finally {
      await template.close();
    }
  })();
  let template: Blob;
  try {
    template = await shared.kmPgliteTemplate;
  } catch (error) {
    shared.kmPgliteTemplate = undefined; // the next call tries again
    throw error;
  }
  return PGlite.create({ ...options, loadDataDir: template });
}
