import { mkdtemp, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sharedPgliteTemplate } from '../src/testing/pglite-template-file.js';

describe('sharedPgliteTemplate: one initialised data folder per machine, made by one process', () => {
  let folder: string;
  beforeEach(async () => {
    folder = await mkdtemp(join(tmpdir(), 'km-pglite-template-'));
  });
  afterEach(() => rm(folder, { recursive: true, force: true }));

  const template = (text: string) => new Blob([text], { type: 'application/x-tar' });

  it('makes it once: later calls (other processes, later runs) read the file', async () => {
    let made = 0;
    const make = async () => {
      made++;
      return template('initialised');
    };
    expect(await (await sharedPgliteTemplate(make, folder)).text()).toBe('initialised');
    expect(await (await sharedPgliteTemplate(make, folder)).text()).toBe('initialised');
    expect(made).toBe(1);
    expect((await readdir(folder)).filter((f) => f.endsWith('.tar'))).toHaveLength(1);
    expect((await readdir(folder)).filter((f) => !f.endsWith('.tar'))).toEqual([]); // no lock, no partial file left
  });

  it('callers at once: one makes it while the others wait for its file', async () => {
    let made = 0;
    const make = async () => {
      made++;
      await new Promise((resolve) => setTimeout(resolve, 300));
      return template('initialised');
    };
    const all = await Promise.all(Array.from({ length: 4 }, () => sharedPgliteTemplate(make, folder)));
    expect(await Promise.all(all.map((b) => b.text()))).toEqual(Array(4).fill('initialised'));
    expect(made).toBe(1);
  });

  it('a lock left by a process that died long ago is taken over', async () => {
    await sharedPgliteTemplate(async () => template('first'), folder);
    const [file] = (await readdir(folder)).filter((f) => f.endsWith('.tar'));
    await rm(join(folder, file!));
    const lock = join(folder, `${file}.lock`);
    await writeFile(lock, '');
    const old = new Date(Date.now() - 10 * 60_000);
    await utimes(lock, old, old);
    expect(await (await sharedPgliteTemplate(async () => template('again'), folder)).text()).toBe('again');
  });

  it('a folder it cannot write to costs only the cache: each call makes its own', async () => {
    let made = 0;
    const missing = join(folder, 'not', 'there');
    const make = async () => template(`made ${++made}`);
    expect(await (await sharedPgliteTemplate(make, missing)).text()).toBe('made 1');
    expect(await (await sharedPgliteTemplate(make, missing)).text()).toBe('made 2');
  });

  it('a failure to make it is thrown, and leaves no lock behind', async () => {
    await expect(sharedPgliteTemplate(() => Promise.reject(new Error('initdb failed')), folder)).rejects.toThrow('initdb failed');
    expect(await readdir(folder)).toEqual([]);
  });
});
