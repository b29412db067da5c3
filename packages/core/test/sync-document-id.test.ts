import { describe, expect, it } from 'vitest';
import { syncDocumentId, validateDocumentId } from '../src/index.js';

describe('syncDocumentId', () => {
  it('is a readable slug of the item id and a hash, the same on every call', () => {
    const id = syncDocumentId('folder:/srv/docs', 'guides/Getting started.md');
    expect(id).toMatch(/^guides_Getting_started\.md-[0-9a-f]{16}$/);
    expect(syncDocumentId('folder:/srv/docs', 'guides/Getting started.md')).toBe(id);
  });

  it('gives valid document ids for odd paths, unicode and very long ids', () => {
    const odd = [
      '../../etc/passwd',
      '..',
      '.',
      '/',
      '',
      '---',
      'a/../b',
      'dir/.hidden',
      'C:\\Users\\x\\file.txt',
      'naïve résumé.md',
      '日本語/ファイル.txt',
      '😀/😀.md',
      'a\0b',
      'x'.repeat(5000),
      `${'é'.repeat(300)}/end.md`,
      `${'a/'.repeat(400)}deep.txt`,
      'https://example.com/a?b=c&d=e#f',
    ];
    for (const itemId of odd) {
      const id = syncDocumentId('s3://bucket/prefix', itemId);
      expect(() => validateDocumentId(id), itemId.slice(0, 40)).not.toThrow();
      expect(Buffer.byteLength(id)).toBeLessThanOrEqual(255);
    }
    // A long id keeps its end (the file name), which tells items apart best.
    expect(syncDocumentId('s', `${'a/'.repeat(400)}deep.txt`)).toMatch(/_deep\.txt-[0-9a-f]{16}$/);
  });

  it('differs for distinct (source, item) pairs, also when their slugs are equal', () => {
    const ids = new Set<string>();
    const pairs: [string, string][] = [
      ['folder:/a', 'x y.md'],
      ['folder:/a', 'x_y.md'],
      ['folder:/a', 'x?y.md'],
      ['folder:/b', 'x y.md'],
      ['folder:/a\0x', 'y'],
      ['folder:/a', 'x\0y'],
      ['', ''],
    ];
    for (const [source, item] of pairs) ids.add(syncDocumentId(source, item));
    expect(ids.size).toBe(pairs.length);
  });
});
