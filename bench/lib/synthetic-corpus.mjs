// A deterministic synthetic corpus for scale benchmarks: pronounceable words drawn from a Zipf
// law (s = 1) over a fixed vocabulary, so a few words are in most documents and most words in
// few, as in natural text; vectors are seeded and unit-length. Nothing here reads a file.

const ONSETS = ['b', 'c', 'd', 'f', 'g', 'h', 'k', 'l', 'm', 'n', 'p', 'r', 's', 't', 'v', 'z', 'br', 'tr', 'st', 'pl'];
const VOWELS = ['a', 'e', 'i', 'o', 'u', 'ai', 'ou'];
const CODAS = ['', 'n', 'r', 'l', 'x', 'm'];

/** A seeded generator of floats in [0, 1). */
export function seededRandom(seed) {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** `size` distinct pseudo-words of 2–3 syllables, the same for the same seed. */
export function vocabulary(size, seed = 11) {
  const random = seededRandom(seed);
  const pick = (list) => list[Math.floor(random() * list.length)];
  const words = new Set();
  while (words.size < size) {
    const syllables = 2 + Math.floor(random() * 2);
    let word = '';
    for (let i = 0; i < syllables; i++) word += pick(ONSETS) + pick(VOWELS) + (i === syllables - 1 ? pick(CODAS) : '');
    words.add(word);
  }
  return [...words];
}

/** Draws word ranks from Zipf(s = 1) over `size` ranks (inverse CDF by binary search). */
export function zipfSampler(size, random) {
  const cdf = new Float64Array(size);
  let total = 0;
  for (let r = 0; r < size; r++) {
    total += 1 / (r + 1);
    cdf[r] = total;
  }
  return () => {
    const u = random() * total;
    let lo = 0;
    let hi = size - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cdf[mid] < u) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
}

/** A corpus of documents of about `wordsPerDoc` words, its vocabulary and query builders. */
export function syntheticCorpus({ vocabularySize = 40_000, wordsPerDoc = 100, dimensions = 384, seed = 7 } = {}) {
  const words = vocabulary(vocabularySize);
  const random = seededRandom(seed);
  const rank = zipfSampler(vocabularySize, random);
  const text = (n = wordsPerDoc) => Array.from({ length: n }, () => words[rank()]).join(' ');
  const vector = () => {
    const v = Array.from({ length: dimensions }, () => random() - 0.5);
    const norm = Math.hypot(...v);
    return v.map((x) => x / norm);
  };
  /** `count` distinct words with ranks in [from, to). */
  const wordsRanked = (count, from, to) => {
    const chosen = new Set();
    while (chosen.size < count) chosen.add(words[from + Math.floor(random() * (to - from))]);
    return [...chosen];
  };
  return { words, text, vector, wordsRanked };
}
