import { setTimeout as sleep } from 'node:timers/promises';
import { beforeAll, describe, expect, it } from 'vitest';
import { importTexts, uploadForm, useTestService, waitForCompletion } from './helpers.js';

/** A question of `count` words that memory mostly does not hold; each `variant` is another text (no cache shares them). */
const longQuestion = (count: number, variant = 0) =>
  `What do comets release near the Sun? ${Array.from({ length: count }, (_, i) => `word${(i * (variant + 7)) % 1009}`).join(' ')}`;

const post = (url: string, path: string, body: unknown, signal?: AbortSignal) =>
  fetch(`${url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    ...(signal ? { signal } : {}),
  });

// Against the local model the service uses by default (Universal Sentence Encoder lite in worker threads).
describe('long questions whose clients hang up do not jam the local embedder', { timeout: 120_000 }, () => {
  const service = useTestService({ overrides: { embeddings: { provider: 'local' } } });
  beforeAll(
    () =>
      importTexts(service().url, 'sky', {
        comet: 'Comets are icy bodies that release gas and dust when they pass near the Sun, which makes their tails.',
        moon: 'The Moon orbits the Earth once every 27 days.',
      }),
    60_000,
  );

  async function timedSearch(): Promise<number> {
    const started = performance.now();
    const res = await post(service().url, '/search', { index: 'sky', query: 'what makes the tail of a comet?' });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { results: unknown[] }).results.length).toBeGreaterThan(0);
    return performance.now() - started;
  }

  it('three abandoned 20,000-word asks, then a search answers close to its normal latency and an upload completes', async () => {
    await timedSearch(); // warm up
    const normal = Math.max(await timedSearch(), await timedSearch(), await timedSearch());
    // Three clients ask different questions (one streams) and hang up after 500 ms.
    const asks = [false, true, false].map(async (stream, variant) => {
      const question = longQuestion(20_000, variant);
      const controller = new AbortController();
      const request = post(service().url, '/ask', { index: 'sky', question, stream }, controller.signal);
      await sleep(500);
      controller.abort();
      await request.then((res) => res.body?.cancel()).catch(() => undefined);
    });
    await Promise.all(asks);
    const upload = fetch(`${service().url}/upload`, {
      method: 'POST',
      body: uploadForm({ index: 'sky', documentId: 'mars' }, [
        { name: 'mars.txt', content: 'Mars has two small moons, Phobos and Deimos.', type: 'text/plain' },
      ]),
    });
    const afterHangUps = await timedSearch();
    expect(afterHangUps).toBeLessThan(normal + 3_000);
    expect((await upload).status).toBe(202);
    await waitForCompletion(service().url, 'mars', 'sky');
    // A hang-up is no error.
    await sleep(200);
    expect(service().logs.filter((line) => /"level":(50|"error")/.test(line))).toEqual([]);
  });

  it('a 20,000-word question gets an answer (read from its start) within seconds, echoing it whole', async () => {
    const question = longQuestion(20_000);
    const started = performance.now();
    const res = await post(service().url, '/ask', { index: 'sky', question });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { question: string }).question).toBe(question);
    expect(performance.now() - started).toBeLessThan(10_000);
  });
});
