/**
 * The content words of a text for the extractive answer's scoring: folded (lower case, no
 * diacritics), English stop words and question words out, a light English stemmer, each CJK
 * character a term. A small local tokenizer: the lexical search's tokenizer
 * (`memory-storage/text-search`) did not exist when this was written; the two follow the same
 * folding and stemming spirit.
 */
export function contentTerms(text: string): string[] {
  const out: string[] = [];
  const folded = text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase();
  for (const [word] of folded.matchAll(WORD)) {
    if (CJK.test(word)) {
      for (const ch of word) out.push(ch);
      continue;
    }
    if (STOP_WORDS.has(word)) continue;
    out.push(stem(word));
  }
  return out;
}

const WORD = /[\p{L}\p{N}]+/gu;
const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u;

const STOP_WORDS = new Set(
  (
    'a an the and or but nor of to in on at by for with from into onto about as than then so if is are was were be been being am ' +
    'do does did doing have has had having can could will would shall should may might must it its this that these those ' +
    'there here what when where which who whom whose why how many much i me my we our you your he him his she her they them their ' +
    'not no yes any some all each every such very just also up out over under again further once only own same too s t ' +
    'tell know please get got'
  ).split(' '),
);

/** A light English stemmer: plural and common verb endings (`days` → `day`, `landed` → `land`). */
function stem(word: string): string {
  if (word.length <= 3 || /\d/.test(word)) return word;
  if (word.endsWith('ies') && word.length > 4) return `${word.slice(0, -3)}y`;
  if (/(?:sses|xes|ches|shes)$/.test(word)) return word.slice(0, -2);
  if (word.endsWith('ing') && word.length > 5) return word.slice(0, -3);
  if (word.endsWith('ed') && word.length > 4) return word.slice(0, -2);
  if (word.endsWith('s') && !word.endsWith('ss') && !word.endsWith('us')) return word.slice(0, -1);
  return word;
}

/**
 * The content words of a question: as {@link contentTerms}, without the word after "how"
 * ("how far", "how long", "how tall"), which says what kind of answer is wanted, not what it is
 * about (the passage says "a distance of 384,400 km", not "far").
 */
export function questionTerms(question: string): string[] {
  return contentTerms(question.replace(/\bhow\s+[\p{L}]+/giu, ' '));
}
