import { createHash, randomUUID } from 'node:crypto';
import { open, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** A lock older than this is left by a process that died while making the template. */
const STALE_LOCK_MS = 90_000;
const POLL_MS = 100;

/**
 * The initialised PGlite data folder (a tar), made once per PGlite build and machine and kept
 * in the system's temporary folder: the processes of a test run, and later runs, load it
 * instead of each running initdb. One process makes it while the others wait for its file.
 * Anything that goes wrong with the file (unreadable, a lock left behind) falls back to `make`.
 */
export async function sharedPgliteTemplate(make: () => Promise<Blob>, folder = tmpdir()): Promise<Blob> {
  const file = await templateFileName(folder);
  if (file === undefined) return make();
  for (;;) {
    const cached = await readTemplate(file);
    if (cached) return cached;
    const lock = await takeLock(`${file}.lock`);
    if (lock === 'unavailable') return make();
    if (lock !== 'busy') {
      try {
        // Made by another process between the read above and the lock.
        const made = (await readTemplate(file)) ?? (await make());
        await writeTemplate(file, made);
        return made;
      } finally {
        await lock.release();
      }
    }
    if (!(await waitWhileLocked(`${file}.lock`))) return make();
  }
}

/** `km-pglite-<hash of the PGlite build>.tar`; undefined when PGlite cannot be located. */
async function templateFileName(folder: string): Promise<string | undefined> {
  try {
    const entry = import.meta.resolve('@electric-sql/pglite');
    const { size, mtimeMs } = await stat(fileURLToPath(entry));
    const key = createHash('sha256').update(`${entry}\n${size}\n${mtimeMs}`).digest('hex').slice(0, 16);
    return join(folder, `km-pglite-${key}.tar`);
  } catch {
    return undefined;
  }
}

async function readTemplate(file: string): Promise<Blob | undefined> {
  try {
    return new Blob([await readFile(file)], { type: 'application/x-tar' });
  } catch {
    return undefined;
  }
}

/** Written to a file of its own, then renamed: a reader never sees half a template. */
async function writeTemplate(file: string, template: Blob): Promise<void> {
  const partial = `${file}.${randomUUID()}.partial`;
  try {
    await writeFile(partial, new Uint8Array(await template.arrayBuffer()));
    await rename(partial, file);
  } catch {
    await rm(partial, { force: true });
  }
}

/** The lock, or 'busy' when another process holds it (a stale one is removed), or 'unavailable' when no lock can be made here. */
async function takeLock(path: string): Promise<{ release(): Promise<void> } | 'busy' | 'unavailable'> {
  try {
    const handle = await open(path, 'wx');
    await handle.close();
    return { release: () => rm(path, { force: true }) };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') return 'unavailable';
    const age = await stat(path).then(
      (s) => Date.now() - s.mtimeMs,
      () => 0,
    );
    if (age > STALE_LOCK_MS) await rm(path, { force: true });
    return 'busy';
  }
}

/** Waits until the lock is gone (true), or gives up once it has been held too long (false). */
async function waitWhileLocked(path: string): Promise<boolean> {
  const deadline = Date.now() + STALE_LOCK_MS;
  while (Date.now() < deadline) {
    const held = await stat(path).then(
      () => true,
      () => false,
    );
    if (!held) return true;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  return false;
}
