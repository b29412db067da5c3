import type { IContentStorage } from '@km/core';
import { expect, it } from 'vitest';
import { randomName } from '../util/async.js';

/** The reason the cases skip on a storage that cannot page. */
export const NO_DOCUMENT_PAGING = 'the storage has no listDocumentsAfter (listings read every id through listDocuments)';

/** Document ids written in no particular order; in byte order: `-` < `.` < digits < upper case < `_` < lower case. */
const IDS = ['b', 'a.1', 'B', '_x', 'a-1', 'a', '0', 'a1'];
const BYTE_ORDER = ['0', 'B', '_x', 'a', 'a-1', 'a.1', 'a1', 'b'];

/**
 * Pages of an index's document ids (`listDocumentsAfter`), which core's document listing reads
 * when a storage has it: byte order, each document once whatever its number of files, only ids
 * after the one given (which need not exist), at most `limit`, nothing for a missing index.
 * Storages without it skip these cases.
 */
export function documentPagingCases(fresh: () => Promise<{ s: IContentStorage; index: string }>): void {
  const paging = async () => {
    const { s, index } = await fresh();
    if (typeof s.listDocumentsAfter !== 'function') return undefined;
    return { s: s as Required<Pick<IContentStorage, 'listDocumentsAfter'>> & IContentStorage, index };
  };

  it('listDocumentsAfter: ids in byte order, each once, after the one given, at most limit', async (ctx) => {
    const p = await paging();
    if (!p) return ctx.skip(NO_DOCUMENT_PAGING);
    const { s, index } = p;
    for (const id of IDS) await s.writeFile(index, id, 'f.txt', id);
    await s.writeFile(index, 'a', 'g.txt', 'a second file');
    expect(await s.listDocumentsAfter(index, undefined, 100)).toEqual(BYTE_ORDER);
    expect(await s.listDocumentsAfter(index, undefined, 3)).toEqual(['0', 'B', '_x']);
    expect(await s.listDocumentsAfter(index, '_x', 3)).toEqual(['a', 'a-1', 'a.1']);
    expect(await s.listDocumentsAfter(index, 'a.0', 100)).toEqual(['a.1', 'a1', 'b']);
    expect(await s.listDocumentsAfter(index, 'b', 100)).toEqual([]);
    // Paging through, a page of 3 at a time, gives every id once.
    const paged: string[] = [];
    for (
      let page = await s.listDocumentsAfter(index, undefined, 3);
      page.length > 0;
      page = await s.listDocumentsAfter(index, paged.at(-1), 3)
    ) {
      paged.push(...page);
    }
    expect(paged).toEqual(BYTE_ORDER);
  });

  it('listDocumentsAfter: a deleted document is gone from the pages; a missing index gives nothing', async (ctx) => {
    const p = await paging();
    if (!p) return ctx.skip(NO_DOCUMENT_PAGING);
    const { s, index } = p;
    for (const id of ['d1', 'd2', 'd3']) await s.writeFile(index, id, 'f.txt', id);
    await s.deleteDocumentDirectory(index, 'd2');
    expect(await s.listDocumentsAfter(index, undefined, 10)).toEqual(['d1', 'd3']);
    expect(await s.listDocumentsAfter(randomName('km-conf-missing'), undefined, 10)).toEqual([]);
  });
}
