import { tokenize } from '../text-search/tokenizer.js';

/**
 * Words that say little about what a question is about ("how far away", "how long ago" ask for a kind of answer), beyond the lexical search's stop words
 * (which {@link tokenize} already drops): auxiliaries, quantifiers and request words.
 */
const QUESTION_FILLER = new Set(
  (
    'nor onto about being am doing having shall should may might must many much any some all each every very just also ' +
    'up out over under again further once only own same too s t yes here him his she her he tell know please get got away ago'
  ).split(' '),
);

/**
 * The content words of a text for the extractive answer's scoring: the lexical search's terms
 * (folded, stop words out, lightly stemmed, CJK characters one by one) without question filler.
 */
export function contentTerms(text: string): string[] {
  return tokenize(text).filter((term) => !QUESTION_FILLER.has(term));
}

/**
 * The content words of a question: as {@link contentTerms}, without the word after "how"
 * ("how far", "how long", "how tall"), which says what kind of answer is wanted, not what it is
 * about (the passage says "a distance of 384,400 km", not "far").
 */
export function questionTerms(question: string): string[] {
  return contentTerms(question.replace(/\bhow\s+[\p{L}]+/giu, ' '));
}
