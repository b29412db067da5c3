import { describe, expect, it } from 'vitest';
import { defineRecord, type ITextEmbeddingGenerator, isKmError } from '@km/core';
import { ChatHistory } from '../src/chat-history/chat-history.js';
import { chatHistoryDefinition } from '../src/chat-history/chat-history-definition.js';
import { SimpleVectorStore } from '../src/simple-vector-store.js';

const VOCABULARY = ['hotel', 'sea', 'mountain', 'pool', 'breakfast', 'train', 'price', 'room'];
const DIMENSIONS = VOCABULARY.length + 1;

/** Deterministic embedding: a constant component (never all zeros) plus the count of each vocabulary word. */
class WordCountEmbeddings implements ITextEmbeddingGenerator {
  readonly maxTokens = 1000;
  readonly dimensions = DIMENSIONS;
  readonly maxBatchSize = 256;
  readonly tokenizer = { countTokens: (text: string) => text.split(/\s+/).length, getTokens: (text: string) => text.split(/(?=\s)/) };
  async generateEmbeddings(texts: string[]): Promise<Float32Array[]> {
    return texts.map(embed);
  }
}

function embed(text: string): Float32Array {
  const vector = new Float32Array(DIMENSIONS);
  vector[VOCABULARY.length] = 0.1;
  for (const word of text.toLowerCase().match(/[a-z]+/g) ?? []) {
    const at = VOCABULARY.indexOf(word);
    if (at >= 0) vector[at]! += 1;
  }
  return vector;
}

async function newHistory(name = 'chat') {
  const store = new SimpleVectorStore({ embeddingGenerator: new WordCountEmbeddings() });
  const collection = store.getCollection(name, chatHistoryDefinition({ dimensions: DIMENSIONS }));
  await collection.ensureExists();
  return { store, collection, history: new ChatHistory(collection) };
}

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (e) {
    if (isKmError(e)) return `${e.code}: ${e.message}`;
    throw e;
  }
  return 'no error';
}

describe('ChatHistory', () => {
  it('adds, lists, recalls and clears messages of two sessions separately', async () => {
    const { history, store } = await newHistory();
    const first = await history.add('alice', [
      { role: 'system', content: 'You help guests book a hotel.' },
      { role: 'user', content: 'I want a hotel by the sea with a pool' },
      { role: 'assistant', content: 'Sea View has a pool and serves breakfast.' },
    ]);
    expect(first.map((m) => m.sequence)).toEqual([1, 2, 3]);
    expect(first.every((m) => m.sessionId === 'alice' && m.createdAt instanceof Date && typeof m.messageId === 'string')).toBe(true);
    expect(new Set(first.map((m) => m.messageId)).size).toBe(3);
    const single = await history.add('alice', { role: 'tool', name: 'prices', content: 'room price 120 EUR' });
    expect(single).toMatchObject({ role: 'tool', name: 'prices', sequence: 4, sessionId: 'alice' });
    await history.add('bob', [
      { role: 'user', content: 'A mountain hotel near the train please' },
      { role: 'assistant', content: 'Alpine Lodge is by the train station.' },
    ]);

    const alice = await history.recent('alice');
    expect(alice.map((m) => m.content)).toEqual([
      'You help guests book a hotel.',
      'I want a hotel by the sea with a pool',
      'Sea View has a pool and serves breakfast.',
      'room price 120 EUR',
    ]);
    expect(alice[0]).not.toHaveProperty('name');
    expect(alice[3]!.name).toBe('prices');
    expect(alice[0]!.createdAt.getTime()).toBeLessThanOrEqual(alice[3]!.createdAt.getTime());
    const lastTwo = await history.recent('alice', { limit: 2 });
    expect(lastTwo.map((m) => m.sequence)).toEqual([3, 4]);
    expect((await history.recent('bob')).map((m) => m.sequence)).toEqual([1, 2]);
    expect(await history.recent('nobody')).toEqual([]);

    // Recall: within one session, or across sessions.
    const [inAlice] = await history.recall('train to the mountain', { sessionId: 'alice', top: 1 });
    expect(inAlice!.message.sessionId).toBe('alice');
    const [anywhere] = await history.recall('train to the mountain', { top: 1 });
    expect(anywhere!.message.content).toBe('A mountain hotel near the train please');
    expect(anywhere!.score).toBeGreaterThan(0.5);
    const weak = await history.recall('train to the mountain', { sessionId: 'alice', minScore: 0.9 });
    expect(weak).toEqual([]);

    // Clearing one session leaves the other.
    expect(await history.clear('alice')).toBe(4);
    expect(await history.recent('alice')).toEqual([]);
    expect(await history.recall('pool', { sessionId: 'alice' })).toEqual([]);
    expect((await history.recent('bob')).length).toBe(2);
    expect(await history.clear('alice')).toBe(0);
    // A cleared session starts over.
    expect((await history.add('alice', { role: 'user', content: 'hello again' })).sequence).toBe(1);
    await store.close();
  });

  it('gives increasing sequences to concurrent adds of one session, across ChatHistory instances', async () => {
    const { history, collection, store } = await newHistory();
    const other = new ChatHistory(collection);
    const adds = Array.from({ length: 30 }, (_, i) =>
      (i % 2 === 0 ? history : other).add(
        's',
        i % 3 === 0
          ? [
              { role: 'user', content: `m${i} a` },
              { role: 'user', content: `m${i} b` },
            ]
          : { role: 'user', content: `m${i}` },
      ),
    );
    const results = (await Promise.all(adds)).flat();
    const sequences = results.map((m) => m.sequence).sort((a, b) => a - b);
    expect(sequences).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
    // Each add's messages are consecutive, and the adds were applied in the order they were called.
    const stored = await history.recent('s', { limit: 100 });
    expect(stored.map((m) => m.content)).toEqual(
      Array.from({ length: 30 }, (_, i) => (i % 3 === 0 ? [`m${i} a`, `m${i} b`] : [`m${i}`])).flat(),
    );
    await store.close();
  });

  it('keeps serving a session after an add fails inside it (here: aborted)', async () => {
    const { history, store } = await newHistory();
    const aborted = AbortSignal.abort();
    const [failed, added] = await Promise.allSettled([
      history.add('s', { role: 'user', content: 'never stored' }, { signal: aborted }),
      history.add('s', { role: 'user', content: 'stored' }),
    ]);
    expect(failed.status === 'rejected' && isKmError(failed.reason, 'aborted')).toBe(true);
    expect(added.status === 'fulfilled' && added.value.sequence).toBe(1);
    expect((await history.recent('s')).map((m) => m.content)).toEqual(['stored']);
    await store.close();
  });

  it('clears a session larger than one page', async () => {
    const { history, store } = await newHistory();
    const many = Array.from({ length: 1205 }, (_, i) => ({ role: 'user' as const, content: `message ${i}` }));
    await history.add('big', many);
    await history.add('small', { role: 'user', content: 'stay' });
    expect((await history.recent('big', { limit: 10000 })).length).toBe(1205);
    expect(await history.clear('big')).toBe(1205);
    expect(await history.recent('big')).toEqual([]);
    expect((await history.recent('small')).map((m) => m.content)).toEqual(['stay']);
    await store.close();
  });

  it('recalls only messages of the roles asked for', async () => {
    const { history, store } = await newHistory();
    await history.add('s', [
      { role: 'user', content: 'is breakfast included in the room price' },
      { role: 'assistant', content: 'breakfast is included in the room price' },
      { role: 'tool', content: 'price breakfast room' },
    ]);
    const assistants = await history.recall('breakfast price', { roles: ['assistant'], top: 5 });
    expect(assistants.map((r) => r.message.role)).toEqual(['assistant']);
    const two = await history.recall('breakfast price', { roles: ['user', 'tool'], top: 5 });
    expect(two.map((r) => r.message.role).sort()).toEqual(['tool', 'user']);
    expect(await history.recall('breakfast price', { roles: [] })).toEqual([]);
    expect(await codeOf(history.recall('breakfast', { roles: ['admin' as never] }))).toMatch(
      /^invalid_argument: .*roles\[0\] must be one of system, user, assistant, tool, got "admin"/,
    );
    await store.close();
  });

  it('refuses bad roles, contents and session ids, writing none of a refused batch', async () => {
    const { history, store } = await newHistory();
    expect(await codeOf(history.add('s', { role: 'moderator' as never, content: 'hi' }))).toMatch(
      /^invalid_argument: .*message: role must be one of system, user, assistant, tool, got "moderator"/,
    );
    expect(
      await codeOf(
        history.add('s', [
          { role: 'user', content: 'fine' },
          { role: 'assistant', content: '   ' },
        ]),
      ),
    ).toMatch(/^empty_content: .*message 1: content is empty/);
    expect(await codeOf(history.add('s', { role: 'user', content: 'x', extra: 1 } as never))).toMatch(/unknown properties: extra/);
    expect(await codeOf(history.add('s', { role: 'user', content: 'a\u0000b' }))).toMatch(/NUL/);
    expect(await history.recent('s')).toEqual([]);

    expect(await codeOf(history.add('', { role: 'user', content: 'hi' }))).toMatch(/^invalid_argument: .*sessionId is empty/);
    expect(await codeOf(history.add(42 as never, { role: 'user', content: 'hi' }))).toMatch(/sessionId must be a string, got number/);
    expect(await codeOf(history.recent('é'.repeat(129)))).toMatch(/sessionId has 258 UTF-8 bytes; at most 256/);
    expect(await codeOf(history.clear('a\ud800'))).toMatch(/sessionId contains a lone surrogate/);
    expect(await codeOf(history.recall('hi', { sessionId: '' }))).toMatch(/sessionId is empty/);
    expect(await codeOf(history.recall('  '))).toMatch(/^empty_content/);
    expect(await codeOf(history.recent('s', { limit: 0 }))).toMatch(/limit must be an integer from 1 to 10000, got 0/);
    // The longest session id is accepted.
    const longest = 'é'.repeat(128);
    expect((await history.add(longest, { role: 'user', content: 'hi' })).sessionId).toBe(longest);
    await store.close();
  });

  it('needs an embedding generator to add messages, and a chat definition', async () => {
    const store = new SimpleVectorStore();
    const collection = store.getCollection('chat', chatHistoryDefinition({ dimensions: 4, distance: 'dot' }));
    await collection.ensureExists();
    expect(collection.definition.vectors[0]).toMatchObject({ name: 'contentEmbedding', embed: 'content', distance: 'dot', optional: true });
    expect(await codeOf(new ChatHistory(collection).add('s', { role: 'user', content: 'hi' }))).toMatch(
      /^not_configured: .*contentEmbedding/,
    );

    const Other = defineRecord({ key: 'messageId', data: { sessionId: { type: 'string' } }, vectors: { v: { dimensions: 2 } } });
    expect(() => new ChatHistory(store.getCollection('other', Other) as never)).toThrow(/no filterable string property sessionId/);
    await store.close();
  });
});
