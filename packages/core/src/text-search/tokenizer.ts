/**
 * Tokenisation for lexical (BM25) search: the same function reads stored partition text and
 * queries, so both fold the same way.
 *
 * - NFKC, lower case, and the accents of the combining diacritical blocks folded (`Café` → `cafe`).
 *   Marks that are part of a script's letters (Devanagari vowel signs, Thai vowels, kana voicing) stay.
 * - A token is a run of letters, digits and marks (`covid19` stays whole); a number with dots
 *   stays whole (`3.5`, `1.2.3`), so versions and decimals are searchable as written.
 * - Han, Hiragana, Katakana and Thai, written without spaces, give one token per character
 *   (unigrams), so a word of them is found by its characters.
 * - A short list of English stop words is dropped (`the`, `of`, `what`...).
 * - Latin words are folded to one spelling (British to American, irregular verb forms to their
 *   base: {@link foldEnglishVariant}), then get a light, conservative English stemmer ({@link stemEnglish}).
 */
import { foldEnglishVariant } from './english-variants.js';

/** Scripts written without spaces: one token per character. */
const UNSPACED = '[\\p{scx=Han}\\p{scx=Hiragana}\\p{scx=Katakana}\\p{scx=Thai}]';
const TOKEN = new RegExp(`[[\\p{L}\\p{N}]&&${UNSPACED}]\\p{M}*|\\p{N}+(?:\\.\\p{N}+)+|[[\\p{L}\\p{N}\\p{M}]--${UNSPACED}]+`, 'gv');
/** Accents: the combining diacritical mark blocks (Latin, Greek, Cyrillic accents). */
const ACCENTS = /[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]/g;
/** ASCII text needs no Unicode folding and has no unspaced scripts: the same tokens, found faster. */
const ASCII = /^[\x00-\x7f]*$/;
const ASCII_TOKEN = /[0-9]+(?:\.[0-9]+)+|[a-z0-9]+/g;
const LATIN_WORD = /^[a-z]+$/;
/** Last letters of the words {@link stemEnglish} may change. */
const STEMMED_ENDINGS = new Set(['s', 'g', 'd', 'y', 'e']);
const VOWEL = /[aeiouy]/;

/** English words too common to rank by (questions start with several of them). */
export const ENGLISH_STOP_WORDS: ReadonlySet<string> = new Set(
  (
    'a an and are as at be been but by can could did do does for from had has have how i if in into is it its ' +
    'me my no not of on or our so such than that the their them then there these they this those to was we ' +
    'were what when where which who whom whose why will with would you your'
  ).split(' '),
);

/** Words ending in `s` that are not plurals (kept whole). */
const NOT_PLURAL = new Set(['news', 'series', 'species', 'always', 'perhaps', 'whereas', 'thus', 'lens', 'chaos', 'atlas', 'canvas']);

/** Folds text for matching: NFKC, lower case, accents removed. */
export function foldText(text: string): string {
  if (ASCII.test(text)) return text.toLowerCase();
  return text.normalize('NFKC').toLowerCase().normalize('NFD').replace(ACCENTS, '');
}

/** The search terms of a text, in order (repeats kept: they count as term frequency). */
export function tokenize(text: string): string[] {
  const out: string[] = [];
  const folded = foldText(text);
  const pattern = ASCII.test(folded) ? ASCII_TOKEN : TOKEN;
  for (const [token] of folded.matchAll(pattern)) {
    if (ENGLISH_STOP_WORDS.has(token)) continue;
    if (!LATIN_WORD.test(token)) {
      out.push(token);
      continue;
    }
    const word = foldEnglishVariant(token);
    out.push(STEMMED_ENDINGS.has(word.at(-1)!) ? stemEnglish(word) : word);
  }
  return out;
}

/**
 * A light English stemmer for lower-case Latin words; conservative, as both the text and
 * the query go through it (a miss only loses a match, never creates a wrong one):
 * plurals (`studies` → `study`, `boxes` → `box`, `classes` → `class`, `moons` → `moon`;
 * `news`, `analysis`, `status` stay), then one of `-ing` (`landing` → `land`, `running` → `run`),
 * `-ed` (`landed` → `land`, `stopped` → `stop`; `need`, `speed` stay; a short stem gets its silent e
 * back: `baked`, `baking` → `bake`) and `-ly` (`quickly` → `quick`), each only when a stem of 3+
 * letters with a vowel remains; last, the final e of a word of 5+ letters goes, so `release`,
 * `releases` and `released` meet at `releas`.
 */
export function stemEnglish(word: string): string {
  return dropFinalE(stemSuffix(stemPlural(word)));
}

/** `release`, `releases`, `released` → `releas`: a final e of a longer stem goes (not `ee`: `three`, `free`). */
function dropFinalE(w: string): string {
  return w.length >= 5 && w.endsWith('e') && !w.endsWith('ee') ? w.slice(0, -1) : w;
}

function stemPlural(w: string): string {
  if (w.length <= 3 || !w.endsWith('s') || NOT_PLURAL.has(w)) return w;
  if (w.endsWith('ies') && w.length > 4) return `${w.slice(0, -3)}y`;
  if (w.endsWith('sses')) return w.slice(0, -2);
  if (w.endsWith('xes') || w.endsWith('zes') || w.endsWith('ches') || w.endsWith('shes')) return w.slice(0, -2);
  if ('siu'.includes(w.at(-2)!)) return w; // glass, analysis, status
  return w.slice(0, -1);
}

function stemSuffix(w: string): string {
  if (w.endsWith('ing')) return restoreE(undouble(stripIfStem(w, 3)), w);
  if (w.endsWith('ed') && !w.endsWith('eed')) return restoreE(undouble(stripIfStem(w, 2)), w);
  if (w.endsWith('ly') && !w.endsWith('ply')) return stripIfStem(w, 2);
  return w;
}

function stripIfStem(w: string, suffix: number): string {
  const stem = w.slice(0, -suffix);
  return stem.length >= 3 && VOWEL.test(stem) ? stem : w;
}

/** A short stem of one vowel and a final consonant lost its silent e: `bak` → `bake`, `hop(ing)` → `hope`; `land`, `heat`, `stop(ped)` stay. */
function restoreE(stem: string, word: string): string {
  if (stem === word || word.startsWith(`${stem}${stem.at(-1)}`)) return stem;
  return SHORT_STEM.test(stem) ? `${stem}e` : stem;
}

const SHORT_STEM = /^[^aeiouy]*[aeiou][^aeiouwxy]$/;

/** `runn` → `run`, `stopp` → `stop`; `fall`, `miss`, `buzz` keep their double letter. */
function undouble(stem: string): string {
  const last = stem.at(-1)!;
  return stem.length > 3 && last === stem.at(-2) && !'aeiolsz'.includes(last) ? stem.slice(0, -1) : stem;
}
