import { describe, expect, it } from 'vitest';
import { Bm25Index } from '../src/text-search/bm25-index.js';

function index(docs: Record<string, string>): Bm25Index {
  const bm25 = new Bm25Index();
  for (const [id, text] of Object.entries(docs)) bm25.add(id, text);
  return bm25;
}

const ids = (hits: Array<[string, number]>) => hits.map(([id]) => id);

describe('Bm25Index ranking', () => {
  it('a rarer term outranks a common one', () => {
    const bm25 = index({ a: 'apollo rocket', b: 'rocket engine', c: 'rocket fuel', d: 'rocket science' });
    // "apollo" is in one document, "rocket" in all four: the document with the rare word wins.
    expect(ids(bm25.search('apollo rocket', { limit: 10 }))[0]).toBe('a');
    const [[, rare]] = bm25.search('apollo', { limit: 1 }) as [[string, number]];
    const [[, common]] = bm25.search('rocket', { limit: 1 }) as [[string, number]];
    expect(rare).toBeGreaterThan(0);
    expect(common).toBeGreaterThan(0);
    expect(bm25.search('apollo rocket', { limit: 10 })[0]![1]).toBeGreaterThan(bm25.search('apollo rocket', { limit: 10 })[1]![1]);
  });

  it('more matched query words rank higher', () => {
    const bm25 = index({ one: 'moon landing mission', two: 'moon orbit', three: 'mars rover' });
    expect(ids(bm25.search('moon landing mission', { limit: 10 }))).toEqual(['one', 'two']);
  });

  it('a shorter document with the same matches ranks higher (length normalisation)', () => {
    const bm25 = index({ long: 'moon and many other words about something unrelated entirely here', short: 'moon facts' });
    expect(ids(bm25.search('moon', { limit: 10 }))).toEqual(['short', 'long']);
  });

  it('scores lie in (0, 1]: the BM25 sum over its upper bound Σ idf·(k1 + 1); a missing query word lowers it', () => {
    const bm25 = index({ a: 'moon moon moon moon moon moon', b: 'moon', c: 'sun' });
    const scores = bm25.search('moon', { limit: 10 }).map(([, s]) => s);
    for (const s of scores) expect(s > 0 && s <= 1).toBe(true);
    const [[, alone]] = bm25.search('moon', { limit: 1 }) as [[string, number]];
    const [[, withUnknown]] = bm25.search('moon zebra', { limit: 1 }) as [[string, number]];
    expect(withUnknown).toBeLessThan(alone);
    expect(bm25.search('zebra', { limit: 10 })).toEqual([]);
    expect(bm25.search('the of', { limit: 10 })).toEqual([]); // only stop words
  });

  it('ties are ordered by id', () => {
    const bm25 = index({ c: 'same text', a: 'same text', b: 'same text', z: 'other' });
    expect(ids(bm25.search('same', { limit: 10 }))).toEqual(['a', 'b', 'c']);
    expect(ids(bm25.search('same', { limit: 2 }))).toEqual(['a', 'b']);
  });

  it('remove and replace keep the index exact', () => {
    const bm25 = index({ a: 'moon landing', b: 'moon orbit' });
    expect(bm25.remove('a')).toBe(true);
    expect(bm25.remove('a')).toBe(false);
    expect(ids(bm25.search('landing', { limit: 10 }))).toEqual([]);
    bm25.add('b', 'mars rover'); // replaces b's text
    expect(ids(bm25.search('moon', { limit: 10 }))).toEqual([]);
    expect(ids(bm25.search('rover', { limit: 10 }))).toEqual(['b']);
    bm25.add('a', 'moon again');
    expect(bm25.size).toBe(2);
    expect(ids(bm25.search('moon', { limit: 10 }))).toEqual(['a']);
  });

  it('asks accept only about candidates, once each, and leaves refused ones out', () => {
    const bm25 = index({ a: 'moon landing', b: 'moon orbit', c: 'sun', d: 'moon' });
    const asked: string[] = [];
    const hits = bm25.search('moon landing', {
      limit: 10,
      accept: (id) => {
        asked.push(id);
        return id !== 'a';
      },
    });
    expect(ids(hits)).toEqual(['d', 'b']);
    expect(asked.sort()).toEqual(['a', 'b', 'd']);
  });

  it('returns nothing for a limit of 0 or an empty index', () => {
    expect(new Bm25Index().search('moon', { limit: 5 })).toEqual([]);
    expect(index({ a: 'moon' }).search('moon', { limit: 0 })).toEqual([]);
  });
});

describe('Bm25Index term frequency', () => {
  it('counts repeated words: more occurrences in same-length texts rank higher', () => {
    const bm25 = index({ once: 'moon rock dust soil', twice: 'moon moon dust soil' });
    expect(ids(bm25.search('moon', { limit: 10 }))).toEqual(['twice', 'once']);
    bm25.remove('twice');
    bm25.add('thrice', 'moon moon moon soil');
    expect(ids(bm25.search('moon soil', { limit: 10 }))).toEqual(['thrice', 'once']);
  });
});

describe('Bm25Index vocabulary', () => {
  it('forgets a term with the last document holding it, and reuses its number for new terms', () => {
    const index = new Bm25Index();
    index.add('keep', 'moon orbit');
    for (let i = 0; i < 500; i++) {
      index.add(`tmp${i}`, `token${i} hash${i} moon`);
      index.remove(`tmp${i}`);
    }
    // Only the kept document's words remain (a one-off word per document no longer grows memory).
    expect(index.vocabularySize).toBe(2);
    index.add('new', 'fresh words orbit');
    expect(index.vocabularySize).toBe(4);
    expect(index.search('fresh', { limit: 5 }).map(([id]) => id)).toEqual(['new']);
    expect(
      index
        .search('orbit', { limit: 5 })
        .map(([id]) => id)
        .sort(),
    ).toEqual(['keep', 'new']);
    expect(index.search('token3', { limit: 5 })).toEqual([]);
  });
});

describe('Bm25Index documents without terms', () => {
  it('count in N and the average length, are never found, and take text when replaced', () => {
    const scoreWith = (blank: string) => {
      const index = new Bm25Index();
      index.add('moon', 'moon orbit');
      index.add('rock', 'rock dust moon soil');
      for (let i = 0; i < 3; i++) index.add(`b${i}`, blank);
      return index;
    };
    const empty = scoreWith('');
    const stopWords = scoreWith('the of and');
    expect(empty.size).toBe(5);
    expect(empty.search('moon', { limit: 10 })).toEqual(stopWords.search('moon', { limit: 10 }));
    const alone = new Bm25Index();
    alone.add('moon', 'moon orbit');
    alone.add('rock', 'rock dust moon soil');
    expect(empty.search('moon', { limit: 10 })).not.toEqual(alone.search('moon', { limit: 10 }));

    expect(empty.remove('b0')).toBe(true);
    expect(empty.remove('b0')).toBe(false);
    expect(empty.size).toBe(4);
    empty.add('b1', 'orbit of the moon');
    expect(empty.size).toBe(4);
    expect(ids(empty.search('orbit', { limit: 10 })).sort()).toEqual(['b1', 'moon']);
    empty.add('moon', '');
    expect(empty.size).toBe(4);
    expect(ids(empty.search('orbit', { limit: 10 }))).toEqual(['b1']);
  });
});

describe('Bm25Index with the documents counted by its owner (documentCount)', () => {
  it('scores as the self-counting index does, keeps no blank documents, and still drops the terms of a document replaced by a blank one', () => {
    const owned = new Map<string, string>();
    const counted = new Bm25Index({ documentCount: () => owned.size });
    const selfCounting = new Bm25Index();
    const add = (id: string, text: string) => {
      owned.set(id, text);
      counted.add(id, text);
      selfCounting.add(id, text);
    };
    add('moon', 'moon orbit');
    add('rock', 'rock dust moon soil');
    for (let i = 0; i < 3; i++) add(`b${i}`, '');
    expect(counted.size).toBe(5);
    expect(counted.search('moon', { limit: 10 })).toEqual(selfCounting.search('moon', { limit: 10 }));
    // Blank documents are only counted by the owner: nothing here to remove.
    expect(counted.remove('b0')).toBe(false);
    owned.delete('b0');
    selfCounting.remove('b0');
    expect(counted.search('moon', { limit: 10 })).toEqual(selfCounting.search('moon', { limit: 10 }));
    // A document replaced by a blank one loses its terms.
    add('moon', '');
    expect(ids(counted.search('orbit', { limit: 10 }))).toEqual([]);
    expect(counted.search('moon', { limit: 10 })).toEqual(selfCounting.search('moon', { limit: 10 }));
    add('b1', 'orbit of the moon');
    expect(counted.search('orbit moon', { limit: 10 })).toEqual(selfCounting.search('orbit moon', { limit: 10 }));
  });
});
