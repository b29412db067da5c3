import type { ITextEmbeddingGenerator } from '../contracts/text-embedding-generator.js';
import { ReservedTags } from '../models/constants.js';
import { PayloadFields, type MemoryRecord } from '../models/memory-record.js';
import { cosineSimilarity } from '../memory-storage/vector-math.js';

/** Preamble of every extractive answer, so readers know no model wrote it. */
export const EXTRACTIVE_PREAMBLE = 'No language model is configured, so this answer quotes the most relevant passages in memory:';

/** A sentence chosen for the answer and the record it came from. */
export interface QuotedSentence {
  text: string;
  score: number;
  record: MemoryRecord;
  relevance: number;
  /** Other records holding the same sentence (e.g. the same text in other documents), quoted once. */
  duplicates: Array<[MemoryRecord, number]>;
}

const SENTENCE = /(?<=[.!?。！？])\s+|\n\s*\n/u;
const WORD = /[\p{L}\p{N}]+/gu;

/**
 * Picks the sentences of the matched records closest to the question (cosine of their
 * embeddings; word overlap when there is no embedding generator), best first.
 */
export async function selectSentences(
  question: string,
  matches: Array<[MemoryRecord, number]>,
  count: number,
  generator: ITextEmbeddingGenerator | undefined,
  signal?: AbortSignal,
): Promise<QuotedSentence[]> {
  const candidates: Array<Omit<QuotedSentence, 'score'>> = [];
  const seen = new Map<string, Omit<QuotedSentence, 'score'>>();
  for (const [record, relevance] of matches.slice(0, 20)) {
    const text = String(record.payload[PayloadFields.text] ?? '');
    for (const raw of text.split(SENTENCE)) {
      const sentence = raw
        .replace(/^#+\s*/, '')
        .replace(/\s+/g, ' ')
        .trim();
      if (sentence.length < 12) continue;
      const first = seen.get(sentence.toLowerCase());
      if (first) {
        if (first.record !== record && !first.duplicates.some(([r]) => r === record)) first.duplicates.push([record, relevance]);
        continue;
      }
      const candidate = { text: sentence, record, relevance, duplicates: [] };
      seen.set(sentence.toLowerCase(), candidate);
      candidates.push(candidate);
    }
  }
  if (candidates.length === 0) return [];
  let scores: number[];
  if (generator) {
    const vectors = await generator.generateEmbeddings([question, ...candidates.map((c) => c.text)], signal, { purpose: 'query' });
    const q = vectors[0]!;
    scores = candidates.map((_, i) => cosineSimilarity(q, vectors[i + 1]!));
  } else {
    const words = new Set(question.toLowerCase().match(WORD) ?? []);
    scores = candidates.map((c) => {
      const found = new Set((c.text.toLowerCase().match(WORD) ?? []).filter((w) => words.has(w)));
      return words.size ? found.size / words.size : 0;
    });
  }
  // Half the sentence's own closeness, half its passage's relevance: a sentence from the best
  // passage wins over a look-alike from an unrelated one. Weak runners-up are dropped.
  const ranked = candidates
    .map((c, i) => ({ ...c, score: 0.5 * scores[i]! + 0.5 * c.relevance }))
    .filter((c, i) => scores[i]! > 0)
    .sort((a, b) => b.score - a.score);
  const best = ranked[0]?.score ?? 0;
  return ranked.filter((c) => c.score >= best * 0.6).slice(0, count);
}

/** The answer text quoting each sentence once, with the numbers of every source that holds it. */
export function formatExtractiveAnswer(sentences: QuotedSentence[]): string {
  const sources: string[] = [];
  const lines = sentences.map((s) => {
    const numbers = new Set<number>();
    for (const record of [s.record, ...s.duplicates.map(([r]) => r)]) {
      const name = String(record.payload[PayloadFields.file] ?? 'source');
      const documentId = record.tags[ReservedTags.documentId]?.[0] ?? '';
      const label = documentId ? `${name} (document ${documentId})` : name;
      let n = sources.indexOf(label);
      if (n < 0) n = sources.push(label) - 1;
      numbers.add(n + 1);
    }
    return `> "${s.text}" ${[...numbers].map((n) => `[${n}]`).join('')}`;
  });
  return `${EXTRACTIVE_PREAMBLE}\n\n${lines.join('\n')}\n\nSources: ${sources.map((s, i) => `[${i + 1}] ${s}`).join(', ')}`;
}
