import { randomUUID } from 'node:crypto';
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
 * The name of a new spool folder: `{uuid}.{pid}.{host}`, so that a start can tell the
 * folders of a process that died from those of a process still receiving an upload.
 */
export function newSpoolFolderName(): string {
  return `${randomUUID()}.${process.pid}.${hostname()}`;
}

/**
 * Removes what uploads left in `directory` when their process died (a crash, `kill -9`):
 * folders of this machine whose process is gone, folders of other machines older than a day,
 * and anything not named by {@link newSpoolFolderName}. Returns the names removed.
 */
export async function removeStaleSpool(directory: string, now = Date.now()): Promise<string[]> {
  const entries = await readdir(directory).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [];
    throw error;
  });
  const removed: string[] = [];
  for (const name of entries) {
    if (!(await isStale(join(directory, name), name, now))) continue;
    await rm(join(directory, name), { recursive: true, force: true });
    removed.push(name);
  }
  return removed;
}

async function isStale(path: string, name: string, now: number): Promise<boolean> {
  const match = /^[0-9a-f-]{36}\.(\d+)\.(.+)$/.exec(name);
  if (!match) return true;
  const pid = Number(match[1]);
  if (match[2] === hostname()) return pid !== process.pid && !isAlive(pid);
  const info = await stat(path).catch(() => undefined);
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
