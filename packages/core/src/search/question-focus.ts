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
/** Runs of two or more capitalised words (with initials and particles), candidates for a person's name. */
const NAME_RUN = /(?:\p{Lu}\p{Ll}+|\p{Lu}\.)(?:\s+(?:(?:van|von|de|da|del|der|di|du|le|la|bin|al)\s+)?(?:\p{Lu}[\p{Ll}'’-]+|\p{Lu}\.))+/gu;
/** A title before a name: `Dr. Ruiz`, `Mrs Okonedo`. */
const HONORIFIC = /\b(?:Mr|Mrs|Ms|Dr|Prof|Sir|Dame|Lady|Lord)\.?\s+\p{Lu}\p{Ll}+/u;
/** Last words that make a capitalised run a place or an organisation, not a person. */
const NOT_PERSON_ENDINGS = new Set(
  (
    'hills mountains mount river lake street road lane avenue square bridge park station junction quay bay island islands valley ' +
    'sound coast point harbour harbor hall theatre theater museum library school college university church cathedral bakery ' +
    'society club company council centre center way hotel airport market house tower castle gardens forest sea ocean ' +
    'ltd inc corp group institute hospital office department ministry bank street'
  ).split(' '),
);
/** Words that open a capitalised run at a sentence's start without being part of a name. */
const NOT_NAME_STARTS = new Set(
  'the a an in on at it this that these those he she they we our its his her their my your for to of by'.split(' '),
);

/**
 * Whether a sentence names a person: a title and a name (`Dr. Ruiz`), or a run of two or more
 * capitalised words (`Edda Lindqvist`, `Thomas J. Whitcombe`) that is not a place or an
 * organisation (`Skarn Hills`, `Hollins Lane Bakery`) nor a title after "the" (`the Salt Widow`).
 */
export function namesPerson(sentence: string): boolean {
  if (HONORIFIC.test(sentence)) return true;
  for (const match of sentence.matchAll(NAME_RUN)) {
    let words = match[0].split(/\s+/);
    let before = sentence.slice(0, match.index).trimEnd().split(/\s+/).at(-1)?.toLowerCase() ?? '';
    if (NOT_NAME_STARTS.has(words[0]!.toLowerCase())) {
      before = words[0]!.toLowerCase();
      words = words.slice(1);
    }
    if (words.length < 2) continue;
    if (before === 'the' || NOT_PERSON_ENDINGS.has(words.at(-1)!.toLowerCase())) continue;
    return true;
  }
  return false;
}
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
      return namesPerson(sentence);
    case 'place':
      return PLACE_IN_SENTENCE.test(sentence);
  }
}
