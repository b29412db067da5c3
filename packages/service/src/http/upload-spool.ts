import { randomBytes, randomUUID } from 'node:crypto';
import { readdir, rm, stat } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';

/** A spool folder of another machine sharing the data folder is removed when older than this. */
const FOREIGN_SPOOL_MAX_AGE_MS = 24 * 60 * 60 * 1000;

/** Where uploads are spooled until stored: `{dataDirectory}/tmp/uploads`. */
export function uploadSpoolDirectory(dataDirectory: string): string {
  return join(resolve(dataDirectory), 'tmp', 'uploads');
}

/**
 * Tells this process from an earlier one with the same pid and host name: in a container km
 * restarts as pid 1 on the same host name, so pid and host alone would keep a dead process's
 * folders forever.
 */
const PROCESS_NONCE = randomBytes(4).toString('hex');

/**
 * The name of a new spool folder: `{uuid}.{pid}.{nonce}.{host}`, so that a start can tell the
 * folders of a process that died from those of a process still receiving an upload.
 */
export function newSpoolFolderName(): string {
  return `${randomUUID()}.${process.pid}.${PROCESS_NONCE}.${hostname()}`;
}

/** What {@link removeStaleSpool} reports about a folder it could not check or remove. */
export type SpoolWarning = (name: string, error: unknown) => void;

/**
 * Removes what uploads left in `directory` when their process died (a crash, `kill -9`):
 * folders of this machine whose process is gone (another pid that is not running, or this pid
 * with another start nonce), folders of other machines older than a day, and anything not
 * named by {@link newSpoolFolderName}. Never throws: a folder that cannot be listed, checked or
 * removed is reported to `warn` and left. Returns the names removed.
 */
export async function removeStaleSpool(directory: string, options: { now?: number; warn?: SpoolWarning } = {}): Promise<string[]> {
  const now = options.now ?? Date.now();
  const warn = options.warn ?? (() => undefined);
  let entries: string[];
  try {
    entries = await readdir(directory);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') warn(directory, error);
    return [];
  }
  const removed: string[] = [];
  for (const name of entries) {
    try {
      if (!(await isStale(join(directory, name), name, now))) continue;
      await rm(join(directory, name), { recursive: true, force: true });
      removed.push(name);
    } catch (error) {
      warn(name, error);
    }
  }
  return removed;
}

async function isStale(path: string, name: string, now: number): Promise<boolean> {
  // {uuid}.{pid}.{nonce}.{host}; {uuid}.{pid}.{host} from earlier versions
  const match = /^[0-9a-f-]{36}\.(\d+)\.(?:([0-9a-f]{8})\.)?(.+)$/.exec(name);
  if (!match) return true;
  const pid = Number(match[1]);
  const nonce = match[2];
  if (match[3] === hostname()) {
    if (pid === process.pid) return nonce !== PROCESS_NONCE;
    return !isAlive(pid);
  }
  const info = await stat(path).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined; // gone meanwhile
    throw error;
  });
  return info !== undefined && now - info.mtimeMs > FOREIGN_SPOOL_MAX_AGE_MS;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
