import { describe, expect, it } from 'vitest';
import { StoragePaths } from '../src/connector.js';

describe('StoragePaths', () => {
  it('builds {prefix}{index}/{documentId}/{file} after checking every name', () => {
    const paths = new StoragePaths('km/');
    expect([paths.index('notes'), paths.document('notes', 'doc-1'), paths.file('notes', 'doc-1', 'a.txt')]).toEqual([
      'km/notes/',
      'km/notes/doc-1/',
      'km/notes/doc-1/a.txt',
    ]);
    expect(() => paths.file('notes', '..', 'a.txt')).toThrow();
    expect(() => paths.file('notes', 'doc', '../x')).toThrow();
    expect(() => paths.index('Not Normal')).toThrow();
  });

  it('childName reads one level below a parent and nothing deeper', () => {
    const paths = new StoragePaths('');
    expect(paths.childName('km/notes/', 'km/notes/doc-1/')).toBe('doc-1');
    expect(paths.childName('km/notes/doc/', 'km/notes/doc/a.txt')).toBe('a.txt');
    expect(paths.childName('km/notes/doc/', 'km/notes/doc/sub/a.txt')).toBeUndefined();
    expect(paths.childName('km/notes/', 'other/x/')).toBeUndefined();
    expect(paths.childName('', 'notes/')).toBe('notes');
  });

  it('reads listed index folders back, ignoring what is not a km folder', () => {
    const paths = new StoragePaths('p/');
    expect(paths.indexOf('p/idx/')).toBe('idx');
    expect(paths.indexOf('p/Other Stuff/')).toBeUndefined();
    expect(paths.indexOf('q/idx/')).toBeUndefined();
  });

  it('refuses prefixes that are not plain path segments', () => {
    for (const bad of ['/abs/', '..', 'a/../b/', 'a//b/', 'a\\b/']) {
      expect(() => new StoragePaths(bad), bad).toThrow(expect.objectContaining({ code: 'invalid_argument' }));
    }
    expect(new StoragePaths('').prefix).toBe('');
  });
});
