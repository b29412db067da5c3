import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';

/** The initialised data folder, made once per test worker and kept on `globalThis`: a worker runs many files in one module graph. */
const shared = globalThis as { kmPgliteTemplate?: Promise<Blob> };

/**
 * A new, empty in-process PostgreSQL with pgvector available (not created), as
 * `PGlite.create({ extensions: { vector } })` gives, in about a third of its time: PGlite's
 * initdb (about 4 s on a 2-core machine) runs once per test worker, and each database starts
 * from a copy of that initialised data folder. Each call is its own database; close it after.
 */
export async function freshPglite(): Promise<PGlite> {
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
  return PGlite.create({ loadDataDir: template, extensions: { vector } });
}
