import { realpath, stat } from 'node:fs/promises';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { HttpProblem } from '../http/problem-details.js';

/**
 * The real path of a folder a client asked the service to sync, once it is known to lie inside
 * one of `roots` (`KM_SYNC_ROOTS`): 403 `sync_folder_not_allowed` when no root is set, or when the path, as written or
 * once its symbolic links are followed, leaves every root (`..`, a link pointing out); 400 when
 * there is no folder there. A path outside the roots gets 403 whether it exists or not, so the
 * answer tells nothing about the disk outside them.
 */
export async function resolveSyncFolder(path: string, roots: readonly string[]): Promise<string> {
  if (roots.length === 0) {
    throw new HttpProblem(
      403,
      'folder syncs are off on this service: set KM_SYNC_ROOTS (config syncRoots) to the folders it may sync from',
      'sync_folder_not_allowed',
    );
  }
  const outside = () =>
    new HttpProblem(
      403,
      `${JSON.stringify(path)} is not inside a folder the service may sync from (KM_SYNC_ROOTS)`,
      'sync_folder_not_allowed',
    );
  const given = resolve(path);
  const lexicalRoots = roots.map((root) => resolve(root));
  const realRoots = (await Promise.all(lexicalRoots.map((root) => realpath(root).catch(() => undefined)))).filter(
    (root): root is string => root !== undefined,
  );
  if (![...lexicalRoots, ...realRoots].some((root) => isInside(given, root))) throw outside();
  let real: string;
  try {
    real = await realpath(given);
  } catch {
    throw new HttpProblem(400, `there is no folder at ${JSON.stringify(path)}`, 'invalid_argument');
  }
  if (!realRoots.some((root) => isInside(real, root))) throw outside();
  if (!(await stat(real)).isDirectory()) throw new HttpProblem(400, `${JSON.stringify(path)} is not a folder`, 'invalid_argument');
  return real;
}

/** True when `path` is `root` or below it (both absolute and normalised). */
export function isInside(path: string, root: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}
