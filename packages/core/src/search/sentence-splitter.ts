/** Abbreviations that never end a sentence (a name or a word always follows). */
const NEVER_END = new Set([
  'mr',
  'mrs',
  'ms',
  'dr',
  'prof',
  'st',
  'jr',
  'sr',
  'vs',
  'e.g',
  'i.e',
  'cf',
  'approx',
  'jan',
  'feb',
  'mar',
  'apr',
  'jun',
  'jul',
  'aug',
  'sep',
  'sept',
  'oct',
  'nov',
  'dec',
]);

/** Abbreviations that come before a number: `No. 5`, `Fig. 3`, `pp. 12`. */
const BEFORE_NUMBER = new Set(['no', 'nos', 'fig', 'figs', 'p', 'pp', 'vol', 'ch', 'sec', 'art', 'eq']);

/**
 * Abbreviations that may end a sentence (`… at 4 p.m. The …`): the sentence ends there only
 * when the next word usually starts one.
 */
const MAY_END = new Set(['etc', 'inc', 'ltd', 'co', 'corp', 'al', 'a.m', 'p.m', 'u.s', 'u.k', 'e.u', 'u.n']);

/** Words that usually start a sentence, read after an abbreviation that may end one. */
const STARTERS = new Set(
  'a an the this that these those it its he she they we i you our their his her there here in on at for if when while but and or so then however also each every all some as after before during since one many most'.split(
    ' ',
  ),
);

/** A list item: `- x`, `* x`, `• x`, `1. x`, `2) x`. */
const LIST_ITEM = /^\s*(?:[-*•+]|\d{1,3}[.)])\s+/u;
/** A Markdown heading. */
const HEADING = /^\s*#{1,6}\s+/u;
/** End punctuation, closing quotes or brackets, then space (Latin) or not (CJK full stops). */
const BOUNDARY = /[.!?…]+["'”’)\]»]*\s+|[。！？]+[」』）"”’]*\s*/gu;
const CLOSERS = /["'”’)\]»]+$/u;
const LEADING_OPENERS = /^["'“‘([«]+/u;

/**
 * Splits text into sentences. Survives abbreviations (`a.m.`, `e.g.`, `Mr.`, `U.S.`, `Inc.`,
 * `No. 5`, month names), decimals (`3.14`, `$1.5`), initials (`J. R. R. Tolkien`), ellipses
 * followed by a lower-case word, and quotes or brackets after the period; CJK full stops end
 * a sentence without a space. Headings and list items (lines starting with `-`, `*`, `•`, `1.`)
 * are sentences of their own; other line breaks inside a paragraph are spaces.
 *
 * ```ts
 * splitSentences('We open at 9 a.m. on Mondays. Dr. Smith leads.'); // two sentences
 * ```
 */
export function splitSentences(text: string): string[] {
  const out: string[] = [];
  for (const block of blocks(text)) {
    for (const sentence of splitBlock(block)) {
      const clean = sentence.replace(/\s+/g, ' ').trim();
      if (clean !== '') out.push(clean);
    }
  }
  return out;
}

/** Paragraphs, with headings and list items as blocks of their own. */
function blocks(text: string): string[] {
  const out: string[] = [];
  let current: string[] = [];
  const flush = () => {
    if (current.length > 0) out.push(current.join(' '));
    current = [];
  };
  for (const line of text.split(/\r\n|\r|\n/)) {
    if (line.trim() === '') {
      flush();
    } else if (HEADING.test(line)) {
      flush();
      out.push(line.replace(HEADING, ''));
    } else if (LIST_ITEM.test(line)) {
      flush();
      current.push(line.replace(LIST_ITEM, ''));
    } else {
      current.push(line.trim());
    }
  }
  flush();
  return out;
}

function splitBlock(block: string): string[] {
  const out: string[] = [];
  let start = 0;
  for (const match of block.matchAll(BOUNDARY)) {
    const end = match.index + match[0].length;
    if (end >= block.length) break;
    if (!endsSentence(block, match.index, match[0], end)) continue;
    out.push(block.slice(start, end));
    start = end;
  }
  out.push(block.slice(start));
  return out;
}

/** The run of non-space characters ending at `at` (walking back, not rescanning the block: linear overall). */
function lastWord(block: string, at: number): string {
  let start = at;
  while (start > 0 && at - start < 64 && !/\s/u.test(block[start - 1]!)) start--; // longer runs are no abbreviation
  return block.slice(start, at);
}

/** Whether the punctuation `mark` at `at` (the next sentence would start at `next`) ends a sentence. */
function endsSentence(block: string, at: number, mark: string, next: number): boolean {
  if (/^[。！？]/u.test(mark)) return true;
  const following = block.slice(next, next + 64); // only its start is read: no copy of the rest of the block
  // A lower-case word goes on with the same sentence ("e.g. apples", "Wait... what").
  if (/^\p{Ll}/u.test(following)) return false;
  const punctuation = mark.trim().replace(CLOSERS, '');
  if (punctuation !== '.') return true;
  const word = lastWord(block, at).replace(LEADING_OPENERS, '');
  const lower = word.toLowerCase();
  if (/^\p{Lu}$/u.test(word)) return false; // an initial: J. R. R. Tolkien, John F. Kennedy
  if (NEVER_END.has(lower)) return false;
  if (BEFORE_NUMBER.has(lower)) return !/^\d/u.test(following);
  if (MAY_END.has(lower) || /^(?:\p{L}\.)+\p{L}$/u.test(word)) {
    const nextWord = (/^[\p{L}']+/u.exec(following)?.[0] ?? '').toLowerCase();
    return STARTERS.has(nextWord);
  }
  return true;
}
