import { resolve } from 'node:path';
import { CliError, EXIT_CODES } from './errors.js';

/** What `km sync <source>` names: a folder of this machine, or a web site. */
export type SyncSourceArg = { type: 'folder'; path: string } | { type: 'web'; url: string };

/**
 * Reads the `<source>` of `km sync`: an `http(s)://` URL is a web site, `s3://` and `azure://`
 * are refused (not supported by this version), anything else is a folder path (resolved).
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
  if (scheme !== undefined) {
    throw new CliError(
      `km sync cannot sync ${scheme}:// sources yet: give a folder path or an http(s):// URL (see km sync --help)`,
      EXIT_CODES.usage,
    );
  }
  return { type: 'folder', path: resolve(value) };
}
