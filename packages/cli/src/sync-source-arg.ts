import { resolve } from 'node:path';
import { CliError, EXIT_CODES } from './errors.js';

/** What `km sync <source>` names: a folder of this machine, a web site, an S3 or Azure Blob prefix. */
export type SyncSourceArg =
  | { type: 'folder'; path: string }
  | { type: 'web'; url: string }
  | { type: 's3'; bucket: string; prefix: string }
  | { type: 'azure-blob'; container: string; prefix: string };

/**
 * Reads the `<source>` of `km sync`: an `http(s)://` URL is a web site, `s3://bucket/prefix` and
 * `azure://container/prefix` are bucket prefixes, anything else is a folder path (resolved).
 */
export function parseSyncSourceArg(value: string): SyncSourceArg {
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(value)?.[1]?.toLowerCase();
  if (scheme === 'http' || scheme === 'https') {
    try {
      return { type: 'web', url: new URL(value).href };
    } catch {
      throw new CliError(`${JSON.stringify(value)} is not a valid URL`, EXIT_CODES.usage);
    }
  }
  if (scheme === 's3' || scheme === 'azure') {
    const rest = value.slice(value.indexOf('://') + 3);
    const slash = rest.indexOf('/');
    const name = slash < 0 ? rest : rest.slice(0, slash);
    const prefix = slash < 0 ? '' : rest.slice(slash + 1);
    if (name === '')
      throw new CliError(
        `${value}: name the ${scheme === 's3' ? 'bucket' : 'container'}, e.g. ${scheme}://docs/handbook`,
        EXIT_CODES.usage,
      );
    return scheme === 's3' ? { type: 's3', bucket: name, prefix } : { type: 'azure-blob', container: name, prefix };
  }
  if (scheme !== undefined) {
    throw new CliError(
      `km sync cannot sync ${scheme}:// sources: give a folder path, an http(s):// URL, s3://bucket/prefix or azure://container/prefix (see km sync --help)`,
      EXIT_CODES.usage,
    );
  }
  return { type: 'folder', path: resolve(value) };
}
