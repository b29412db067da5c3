/** What kind of answer a question asks for. */
export type QuestionFocus = 'time' | 'quantity' | 'person' | 'place';

const MONTHS =
  'january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec';
const DAYS = 'monday|tuesday|wednesday|thursday|friday|saturday|sunday';
const TIME_IN_SENTENCE = new RegExp(
  `\\b(?:1\\d{3}|20\\d{2})\\b|\\b(?:${MONTHS})\\b|\\b(?:${DAYS})\\b|\\b\\d{1,2}(?::\\d{2})?\\s*(?:a\\.m\\.|p\\.m\\.|am|pm)\\b|\\b\\d{1,2}:\\d{2}\\b|\\b\\d{4}-\\d{2}-\\d{2}\\b|\\b\\d{1,2}/\\d{1,2}/\\d{2,4}\\b`,
  'iu',
);
const NUMBER_WORDS =
  'one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|forty|fifty|hundred|thousand|million|billion|dozen';
const QUANTITY_IN_SENTENCE = new RegExp(`\\d|\\b(?:${NUMBER_WORDS})\\b`, 'iu');
/** A capitalised word that does not start the sentence (a name). */
const NAME_IN_SENTENCE = /\s["'“(]?\p{Lu}\p{Ll}+/u;
/** A place: a capitalised word after a preposition, or a floor, level, room or building. */
const PLACE_IN_SENTENCE = /\b(?:in|at|on|near|from|to)\s+(?:the\s+)?\p{Lu}\p{Ll}+|\b(?:level|floor|room|building|street|city|country)\b/u;

/**
 * The focus of a question, read from its first words: `when`, `what year`, `since when` ask for
 * a time; `how many`, `how much`, `how long`, `how tall`... for a quantity; `who` for a person;
 * `where` for a place. Undefined for anything else.
 */
export function questionFocus(question: string): QuestionFocus | undefined {
  const q = question.trim().toLowerCase();
  if (/^(?:when|since when|until when)\b|\bwhat (?:year|date|day|time|month)\b|\bwhich (?:year|date|day|month)\b|\bwhat time\b/u.test(q))
    return 'time';
  if (/\bhow (?:many|much|long|tall|high|far|old|big|large|heavy|deep|wide|often|fast)\b|\bwhat (?:percentage|number|amount)\b/u.test(q))
    return 'quantity';
  if (/^(?:who|whom|whose)\b|\bwho\b/u.test(q)) return 'person';
  if (/^where\b|\bwhere\b/u.test(q)) return 'place';
  return undefined;
}

/** Whether a sentence holds what the focus asks for (a date or time, a number, a name, a place). */
export function holdsFocus(sentence: string, focus: QuestionFocus): boolean {
  switch (focus) {
    case 'time':
      return TIME_IN_SENTENCE.test(sentence);
    case 'quantity':
      return QUANTITY_IN_SENTENCE.test(sentence);
    case 'person':
      return NAME_IN_SENTENCE.test(sentence);
    case 'place':
      return PLACE_IN_SENTENCE.test(sentence);
  }
}
