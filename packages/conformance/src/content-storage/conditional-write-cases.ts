import { isKmError, PIPELINE_STATUS_FILE, type IContentStorage } from '@km/core';
import { expect, it } from 'vitest';

/** The file core writes conditionally: the pipeline state, under its `..km.` name. */
const STATE = PIPELINE_STATUS_FILE;

const conflict = (e: unknown) => isKmError(e, 'write_conflict') && (e as { transient?: boolean }).transient === true;

/**
 * Conditional writes (`readFileVersion` + `writeFileIfVersion`), which core uses for the pipeline
 * state when a storage has both: a write made against a stale version must fail with a transient
 * `write_conflict` and change nothing. Storages without them skip these cases.
 */
export function conditionalWriteCases(fresh: () => Promise<{ s: IContentStorage; index: string }>): void {
  const versioned = async () => {
    const { s, index } = await fresh();
    if (!s.readFileVersion || !s.writeFileIfVersion) return undefined;
    return { s: s as Required<Pick<IContentStorage, 'readFileVersion' | 'writeFileIfVersion'>> & IContentStorage, index };
  };

  it('conditional writes: null creates only a missing file; the version read lets exactly the next write through', async (ctx) => {
    const v = await versioned();
    if (!v) return ctx.skip();
    const { s, index } = v;
    await expect(s.readFileVersion(index, 'doc', STATE)).rejects.toSatisfy((e: unknown) => isKmError(e, 'file_not_found'));
    const first = await s.writeFileIfVersion(index, 'doc', STATE, '{"n":1}', null);
    await expect(s.writeFileIfVersion(index, 'doc', STATE, '{"n":"again"}', null)).rejects.toSatisfy(conflict);
    const read = await s.readFileVersion(index, 'doc', STATE);
    expect(read).toEqual({ data: Buffer.from('{"n":1}'), version: first });
    const second = await s.writeFileIfVersion(index, 'doc', STATE, '{"n":2}', first);
    expect(second).not.toBe(first);
    await expect(s.writeFileIfVersion(index, 'doc', STATE, '{"n":"stale"}', first)).rejects.toSatisfy(conflict);
    expect((await s.readFile(index, 'doc', STATE)).toString()).toBe('{"n":2}');
  });

  it('conditional writes: a plain write or a deletion in between makes the old version stale', async (ctx) => {
    const v = await versioned();
    if (!v) return ctx.skip();
    const { s, index } = v;
    const first = await s.writeFileIfVersion(index, 'doc', STATE, 'one', null);
    await s.writeFile(index, 'doc', STATE, 'plain');
    await expect(s.writeFileIfVersion(index, 'doc', STATE, 'two', first)).rejects.toSatisfy(conflict);
    const { version } = await s.readFileVersion(index, 'doc', STATE);
    await s.deleteFile(index, 'doc', STATE);
    await expect(s.writeFileIfVersion(index, 'doc', STATE, 'three', version)).rejects.toSatisfy(conflict);
    expect(await s.fileExists(index, 'doc', STATE)).toBe(false);
  });

  it('conditional writes: of several writers holding the same version, exactly one wins', async (ctx) => {
    const v = await versioned();
    if (!v) return ctx.skip();
    const { s, index } = v;
    const start = await s.writeFileIfVersion(index, 'doc', STATE, 'start', null);
    const writers = Array.from({ length: 5 }, (_, i) => s.writeFileIfVersion(index, 'doc', STATE, `writer ${i}`, start));
    const outcomes = await Promise.allSettled(writers);
    const won = outcomes.flatMap((o, i) => (o.status === 'fulfilled' ? [i] : []));
    expect(won).toHaveLength(1);
    for (const o of outcomes) if (o.status === 'rejected') expect(conflict(o.reason)).toBe(true);
    expect((await s.readFile(index, 'doc', STATE)).toString()).toBe(`writer ${won[0]}`);
  });
}
