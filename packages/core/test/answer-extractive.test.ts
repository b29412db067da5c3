import { describe, expect, it } from 'vitest';
import {
  EXTRACTIVE_PREAMBLE,
  HashingEmbeddingGenerator,
  NOT_FOUND_ANSWER,
  ReservedTags,
  answerabilityModelFor,
  ANSWERABILITY_MODELS,
  LEXICAL_ANSWERABILITY,
  silentLogger,
  type ITextEmbeddingGenerator,
  type MemoryRecord,
  type SimilarityOptions,
} from '../src/index.js';
import { SearchOnlyDb } from './helpers.js';
import { SearchClient } from '../src/connector.js';
import { cosineSimilarity } from '../src/memory-storage/vector-math.js';

/** A memory DB over fixed records, ranked by cosine with the hashing embeddings; records every options object. */
class FixedDb extends SearchOnlyDb {
  readonly calls: SimilarityOptions[] = [];
  constructor(
    private readonly records: MemoryRecord[],
    private readonly embeddings: HashingEmbeddingGenerator,
  ) {
    super();
  }
  protected async matches(query: string | Float32Array | number[], options: SimilarityOptions): Promise<Array<[MemoryRecord, number]>> {
    this.calls.push(options);
    const q = typeof query === 'string' ? this.embeddings.embed(query) : query;
    const scored = this.records.map(
      (r) => [r, cosineSimilarity(q, this.embeddings.embed(String(r.payload.text)))] as [MemoryRecord, number],
    );
    scored.sort((a, b) => b[1] - a[1]);
    return scored.filter((m) => m[1] >= (options.minRelevance ?? 0));
  }
}

function record(documentId: string, text: string, extra: { section?: number; fileType?: string; rel?: number } = {}): MemoryRecord {
  return {
    id: `d=${documentId}//p=0`,
    vector: [],
    tags: {
      [ReservedTags.documentId]: [documentId],
      [ReservedTags.fileId]: ['f'],
      ...(extra.section !== undefined ? { [ReservedTags.sectionNumber]: [String(extra.section)] } : {}),
      ...(extra.fileType ? { [ReservedTags.fileType]: [extra.fileType] } : {}),
    },
    payload: { text, file: `${documentId}.txt`, ...(extra.rel !== undefined ? { rel: extra.rel } : {}) },
  };
}

class CountingEmbeddings extends HashingEmbeddingGenerator {
  readonly batches: number[] = [];
  override async generateEmbeddings(texts: string[], signal?: AbortSignal): Promise<Float32Array[]> {
    this.batches.push(texts.length);
    return super.generateEmbeddings(texts, signal);
  }
}

function client(records: MemoryRecord[], options: { answerFloor?: number; embeddings?: ITextEmbeddingGenerator } = {}) {
  const embeddings = (options.embeddings as CountingEmbeddings | undefined) ?? new CountingEmbeddings();
  const db = new FixedDb(records, embeddings);
  const search = new SearchClient(
    { memoryDb: db, embeddingGenerator: embeddings, textGenerator: undefined, logger: silentLogger },
    options.answerFloor !== undefined ? { answerFloor: options.answerFloor } : {},
  );
  return { search, db, embeddings };
}

const APOLLO =
  'Apollo 11 was the spaceflight that first landed humans on the Moon. The crew trained for years at the Manned Spacecraft Center. ' +
  'Commander Neil Armstrong and pilot Buzz Aldrin landed the lunar module Eagle on the Moon on July 20, 1969. ' +
  'Armstrong stepped onto the Moon surface six hours later.';
const GARAGE =
  'The company garage is open to all staff. The garage has 120 parking spaces for staff cars. ' +
  'Electric vehicle chargers for staff cars are on the lower level of the garage.';
const OTHER = 'The cafeteria serves lunch from noon. Menus change weekly and list vegetarian dishes.';

describe('extractive answer (no text generator)', () => {
  it('quotes the sentence holding the date when the question asks "when", and says no model wrote it', async () => {
    const { search } = client([record('apollo', APOLLO), record('food', OTHER)]);
    const answer = await search.ask('When did Apollo 11 land on the Moon?', { index: 'kb', filters: [] });
    expect(answer.noResult).toBe(false);
    expect(answer.text.startsWith(EXTRACTIVE_PREAMBLE)).toBe(true);
    const firstQuote = answer.text.split('\n').find((l) => l.startsWith('> '))!;
    expect(firstQuote).toContain('July 20, 1969');
  });

  it('quotes the sentence holding the number when the question asks "how many"', async () => {
    const { search } = client([record('garage', GARAGE), record('food', OTHER)]);
    const answer = await search.ask('How many parking spaces does the garage have for staff cars?', { index: 'kb', filters: [] });
    const firstQuote = answer.text.split('\n').find((l) => l.startsWith('> '))!;
    expect(firstQuote).toContain('120 parking spaces');
  });

  it('embeds at most a handful of sentences, in one call besides the question', async () => {
    const long = Array.from({ length: 40 }, (_, i) => `Fact number ${i} says the garage holds ${i} bicycles on level ${i}.`).join(' ');
    const { search, embeddings } = client([record('long', long), record('garage', GARAGE)]);
    await search.ask('How many bicycles does the garage hold?', { index: 'kb', filters: [] });
    // One call for the question (retrieval), at most one for at most 8 sentences (the question's vector is reused).
    expect(embeddings.batches[0]).toBe(1);
    expect(embeddings.batches.length).toBeLessThanOrEqual(2);
    expect(embeddings.batches[1] ?? 0).toBeLessThanOrEqual(8);
  });

  it('quotes near-duplicate passages once and cites both sources', async () => {
    const copy = `${GARAGE.replace('open to all staff', 'open to all  staff')} `;
    const { search } = client([record('a', GARAGE), record('b', copy.toUpperCase()), record('food', OTHER)]);
    const answer = await search.ask('How many parking spaces does the garage have?', { index: 'kb', filters: [] });
    expect(answer.text.toLowerCase().split('120 parking spaces').length - 1).toBe(1);
    expect(answer.text).toMatch(/\[1\]\[2\]/);
    expect(answer.relevantSources.map((s) => s.documentId)).toEqual(expect.arrayContaining(['a', 'b']));
  });

  it("numbers its quotes by the answer's relevant sources and does not list the sources again in the text", async () => {
    const { search } = client([record('apollo', APOLLO), record('garage', GARAGE), record('food', OTHER)]);
    const answer = await search.ask('When did Apollo 11 land on the Moon, and how many parking spaces has the garage?', {
      index: 'kb',
      filters: [],
    });
    expect(answer.text).not.toMatch(/Sources:/);
    expect(answer.text).not.toMatch(/\(document /);
    // Each quote's [n] is the n-th relevant source: the quote holds a sentence of that source.
    const quotes = answer.text.split('\n').filter((l) => l.startsWith('> '));
    expect(quotes.length).toBeGreaterThan(1);
    for (const quote of quotes) {
      const n = Number(/\[(\d+)/.exec(quote)![1]);
      const sentence = /^> "(.*)"/.exec(quote)![1]!;
      expect(answer.relevantSources[n - 1]!.partitions.some((p) => p.text.includes(sentence))).toBe(true);
    }
  });

  it('shows the page of a PDF quote and the section of another format', async () => {
    const { search } = client([
      record('manual', GARAGE, { section: 3, fileType: 'application/pdf' }),
      record('notes', APOLLO, { section: 2 }),
    ]);
    const answer = await search.ask('How many parking spaces does the garage have?', { index: 'kb', filters: [] });
    expect(answer.text).toMatch(/120 parking spaces for staff cars\." \[1, page 3\]/);
    const moon = await search.ask('When did Apollo 11 land on the Moon?', { index: 'kb', filters: [] });
    expect(moon.text).toMatch(/1969\." \[1, section 2\]/);
  });

  it('answers "not found" when the best passage is unrelated (low relevance, the question words absent), and answers an answerable one', async () => {
    const { search } = client([record('garage', GARAGE), record('food', OTHER)], { answerFloor: 0.3 });
    const unknown = await search.ask('Who won the 1998 FIFA World Cup?', { index: 'kb', filters: [] });
    expect(unknown.noResult).toBe(true);
    expect(unknown.text).toBe(NOT_FOUND_ANSWER);
    expect(unknown.noResultReason).toMatch(/below the answer floor|question's words/);
    expect(unknown.relevantSources).toEqual([]);
    const known = await search.ask('How many parking spaces does the garage have?', { index: 'kb', filters: [] });
    expect(known.noResult).toBe(false);
    expect(known.text).toContain('120 parking spaces');
  });

  it('answers "not found" below the floor even when the passage holds the question words, and skips every check when the caller gives minRelevance', async () => {
    const { search } = client([record('garage', GARAGE)], { answerFloor: 0.99 });
    const below = await search.ask('How many parking spaces does the garage have?', { index: 'kb', filters: [] });
    expect(below.noResult).toBe(true);
    expect(below.noResultReason).toMatch(/below the answer floor 0.99/);
    const explicit = await search.ask('Who won the 1998 FIFA World Cup?', { index: 'kb', filters: [], minRelevance: 0 });
    expect(explicit.noResult).toBe(false);
  });

  it('answers a question that words the fact differently from the passage, and refuses one about something memory never mentions', async () => {
    const ferry =
      'The Tarrin Sound ferry. The MV Saoirse Bell has crossed Tarrin Sound since 2009. Her hull is painted teal with a white band, and she carries 24 cars.';
    const opera = 'The Salt Widow is an opera in three acts. Ilse Varga composed it in 1931 for the Harbour Theatre.';
    const others = ['bread', 'kettle', 'comet', 'violin', 'glacier', 'tram', 'orchid', 'tennis', 'copper'].map((word) =>
      record(word, `The ${word} guide explains ${word} care in detail.`),
    );
    const { search } = client([record('ferry', ferry), record('opera', opera), ...others]);
    // "colour" and "wrote" appear in no passage: the subject does, and that is enough.
    const colour = await search.ask('What colour is the Tarrin Sound ferry?', { index: 'kb', filters: [] });
    expect(colour.noResult).toBe(false);
    expect(colour.text).toContain('teal');
    const wrote = await search.ask('Who wrote the opera The Salt Widow?', { index: 'kb', filters: [] });
    expect(wrote.noResult).toBe(false);
    expect(wrote.text).toContain('Ilse Varga');
    const offTopic = await search.ask('What is the boiling point of mercury?', { index: 'kb', filters: [] });
    expect(offTopic.noResult).toBe(true);
    expect(offTopic.noResultReason).toMatch(/answer too little of the question \(word evidence 0\.00/);
  });

  it('answers from a spreadsheet row although the question names the spreadsheet and asks for the "capital city"', async () => {
    const rows = (pairs: string[][]) => pairs.map(([country, capital]) => `Country: ${country}\nCapital: ${capital}`).join('\n\n');
    const sheet = `capitals.csv › Sheet: Capitals\n\n${rows([
      ['France', 'Paris'],
      ['Japan', 'Tokyo'],
      ['Kenya', 'Nairobi'],
    ])}`;
    const other = rows([
      ['Peru', 'Lima'],
      ['Chile', 'Santiago'],
    ]);
    const { search } = client([record('capitals', sheet), record('south', other), record('food', OTHER)]);
    const answer = await search.ask('What is the capital city of Japan according to the spreadsheet?', { index: 'kb', filters: [] });
    expect(answer.noResult).toBe(false);
    // The row is one quote: its lines are one paragraph.
    expect(answer.text.split('\n').find((l) => l.startsWith('> '))).toContain('Country: Japan Capital: Tokyo');
  });

  it('quotes the sentence that answers, not the one naming the subject: "Who discovered velloite?"', async () => {
    const velloite =
      'Velloite\n\nVelloite is a rare mineral found only in the Skarn Hills of Oradel. It was first described in 1908 by the mining surveyor Edda Lindqvist. On the Mohs scale it has a hardness of 5.5.';
    const { search } = client([record('velloite', velloite), record('food', OTHER)]);
    const answer = await search.ask('Who discovered velloite?', { index: 'kb', filters: [] });
    const quotes = answer.text.split('\n').filter((l) => l.startsWith('> '));
    expect(quotes[0]).toContain('Edda Lindqvist');
    // The title line names the passage; it is no answer and is never quoted.
    expect(quotes.some((q) => q.startsWith('> "Velloite"'))).toBe(false);
  });

  it('never quotes a markdown heading of the passage', async () => {
    const manual =
      '# AquaBoil K-200 service manual\n\n## Replacing the heating element of the AquaBoil kettle\n\nUnplug the kettle and let it cool. Unscrew the four base screws with a T10 key.';
    const { search } = client([record('manual', manual), record('food', OTHER)]);
    const answer = await search.ask('How do I replace the heating element of the kettle?', { index: 'kb', filters: [] });
    const quotes = answer.text.split('\n').filter((l) => l.startsWith('> '));
    expect(quotes.length).toBeGreaterThan(0);
    expect(quotes.some((q) => q.includes('Replacing the heating element') || q.includes('service manual'))).toBe(false);
  });

  it('leaves the context line (title › section) out of quotes while its words still find the passage', async () => {
    const context = 'Staff handbook › Leave › Parental leave';
    const text = `${context}\n\nEmployees may take up to 26 weeks. They tell their manager eight weeks ahead using form HR-12.`;
    const parental: MemoryRecord = { ...record('handbook', text), payload: { text, context, file: 'handbook.md' } };
    const { search } = client([parental, record('food', OTHER)]);
    const answer = await search.ask('How many weeks of parental leave does the staff handbook allow?', { index: 'kb', filters: [] });
    expect(answer.noResult).toBe(false);
    expect(answer.text).toContain('26 weeks');
    expect(answer.text).not.toContain('›');
    // Citations keep the partition's text as stored, context included.
    expect(answer.relevantSources[0]!.partitions[0]!.text).toBe(text);
  });

  it('does not count the word after "how" (far, long, tall) as a content word the passage must hold', async () => {
    const moon = 'The Moon orbits the Earth at an average distance of 384,400 km. It takes about 27 days to orbit once.';
    const mars = 'Mars is the fourth planet from the Sun. Its red colour comes from iron oxide on its surface.';
    const { search } = client([record('moon', moon, { rel: 0.2 }), record('mars', mars, { rel: 0.1 })], { answerFloor: 0 });
    const answer = await search.ask('How far is the Moon?', { index: 'kb', filters: [] });
    expect(answer.noResult).toBe(false);
    expect(answer.text).toContain('384,400 km');
  });

  it('answers when a passage after the best holds the question words', async () => {
    const moon = 'The Moon is about 384,400 km away from the Earth on average.';
    const { search } = client([record('moon', moon, { rel: 0.5 }), record('apollo', APOLLO, { rel: 0.4 })], { answerFloor: 0 });
    const answer = await search.ask('When did Apollo 11 land on the Moon?', { index: 'kb', filters: [] });
    expect(answer.noResult).toBe(false);
    expect(answer.text).toContain('July 20, 1969');
  });

  it('embeds no sentence when the best one leads by more than the cosine could change', async () => {
    const { search, embeddings } = client([record('apollo', APOLLO), record('food', OTHER)]);
    const answer = await search.ask('When did Apollo 11 land on the lunar surface with Eagle?', { index: 'kb', filters: [] });
    expect(answer.text).toContain('July 20, 1969');
    // The question only (retrieval): the dated sentence holding "lunar" and "Eagle" wins without embeddings.
    expect(embeddings.batches).toEqual([1]);
  });

  it('uses the fitted model of the local embedding model, and the words alone for any other', () => {
    expect(answerabilityModelFor({ modelName: 'local/universal-sentence-encoder-lite' } as ITextEmbeddingGenerator)).toBe(
      ANSWERABILITY_MODELS['local/universal-sentence-encoder-lite'],
    );
    expect(answerabilityModelFor(new HashingEmbeddingGenerator({ dimensions: 64 }))).toBe(LEXICAL_ANSWERABILITY);
    expect(answerabilityModelFor({ modelName: 'someone/else' } as ITextEmbeddingGenerator)).toBe(LEXICAL_ANSWERABILITY);
    expect(answerabilityModelFor(undefined)).toBe(LEXICAL_ANSWERABILITY);
    expect(LEXICAL_ANSWERABILITY.cosine).toBe(0);
  });

  it('refuses by default, and answers everything found with answerability: false', async () => {
    const { search } = client([record('garage', GARAGE), record('food', OTHER)]);
    const unknown = await search.ask('Who won the 1998 FIFA World Cup?', { index: 'kb', filters: [] });
    expect(unknown.noResult).toBe(true);
    const embeddings = new CountingEmbeddings();
    const db = new FixedDb([record('garage', GARAGE), record('food', OTHER)], embeddings);
    const open = new SearchClient(
      { memoryDb: db, embeddingGenerator: embeddings, textGenerator: undefined, logger: silentLogger },
      { answerability: false },
    );
    expect((await open.ask('Who won the 1998 FIFA World Cup?', { index: 'kb', filters: [] })).noResult).toBe(false);
  });
});
