import type { ITextTokenizer } from '../contracts/text-tokenizer.js';
import { InvalidInputError } from '../errors/km-error.js';

/** Options of {@link chunkText}. */
export interface ChunkOptions {
  /** Most tokens in one chunk, header and overlap included. @default 1000 */
  maxTokensPerChunk?: number;
  /** Tokens repeated from the end of a chunk at the start of the next. @default 100 */
  overlapTokens?: number;
  /** Text put at the top of every chunk (e.g. the document title). @default none */
  chunkHeader?: string;
  /** Treat the text as markdown: headings start new chunks. @default false */
  markdown?: boolean;
}

interface Unit {
  text: string;
  tokens: number;
  /** A markdown heading: a good place to start a chunk. */
  heading: boolean;
  /** Separator put before this unit when it follows another. */
  separator: string;
}

const HEADING = /^#{1,6}\s/;
const SENTENCE_END = /(?<=[.!?。！？;])\s+|\n+/u;

/**
 * Splits text into chunks of at most `maxTokensPerChunk` tokens: paragraphs first, then
 * sentences, then words, then tokens for text with no break at all. Consecutive chunks
 * share up to `overlapTokens` tokens of whole trailing sentences (or raw tokens when no
 * sentence fits). With `markdown`, a heading starts a new chunk once the current one is
 * half full, so sections stay together.
 *
 * ```ts
 * chunkText(longText, new CL100KTokenizer(), { maxTokensPerChunk: 200, overlapTokens: 20 })
 * ```
 */
export function chunkText(text: string, tokenizer: ITextTokenizer, options: ChunkOptions = {}): string[] {
  const header = options.chunkHeader ? `${options.chunkHeader.trim()}\n` : '';
  const max = options.maxTokensPerChunk ?? 1000;
  const overlap = options.overlapTokens ?? 100;
  const headerTokens = header ? tokenizer.countTokens(header) : 0;
  const budget = max - headerTokens;
  if (!Number.isInteger(max) || max < 1) {
    throw new InvalidInputError('invalid_argument', `maxTokensPerChunk must be a positive integer, got ${max}`);
  }
  if (!Number.isInteger(overlap) || overlap < 0 || overlap >= budget) {
    throw new InvalidInputError('invalid_argument', `overlapTokens must be between 0 and ${budget - 1}, got ${overlap}`);
  }
  const units = toUnits(text, tokenizer, budget, options.markdown ?? false);
  const chunks: string[] = [];
  let current: Unit[] = [];
  let currentTokens = 0;
  const hasOwnContent = (): boolean => current.some((u) => u.separator !== OVERLAP);

  for (const unit of units) {
    const breakAtHeading = unit.heading && currentTokens >= budget / 2;
    if (hasOwnContent() && (breakAtHeading || currentTokens + unit.tokens > budget)) {
      chunks.push(header + joinUnits(current));
      // carry the overlap, unless a heading starts a section or it would leave no room
      current = breakAtHeading ? [] : overlapUnits(current, overlap, tokenizer);
      currentTokens = current.reduce((n, u) => n + u.tokens, 0);
      if (currentTokens + unit.tokens > budget) {
        current = [];
        currentTokens = 0;
      }
    }
    current.push(unit);
    currentTokens += unit.tokens;
  }
  if (hasOwnContent()) chunks.push(header + joinUnits(current));
  return chunks;
}

const OVERLAP = '\u0000overlap';

function joinUnits(units: Unit[]): string {
  let out = '';
  for (const u of units) out += out === '' ? u.text : (u.separator === OVERLAP ? ' ' : u.separator) + u.text;
  return out.trim();
}

/** Trailing sentences of a chunk worth at most `overlap` tokens (raw tokens when none fits). */
function overlapUnits(units: Unit[], overlap: number, tokenizer: ITextTokenizer): Unit[] {
  if (overlap === 0) return [];
  const carried: Unit[] = [];
  let tokens = 0;
  for (let i = units.length - 1; i >= 0; i--) {
    const u = units[i]!;
    if (u.heading || tokens + u.tokens > overlap) break;
    carried.unshift({ ...u, separator: OVERLAP });
    tokens += u.tokens;
  }
  if (carried.length === 0) {
    const last = units[units.length - 1]!;
    const pieces = tokenizer.getTokens(last.text);
    const tail = pieces.slice(-overlap).join('').trim();
    if (tail) carried.push({ text: tail, tokens: tokenizer.countTokens(tail), heading: false, separator: OVERLAP });
  }
  return carried;
}

function toUnits(text: string, tokenizer: ITextTokenizer, budget: number, markdown: boolean): Unit[] {
  const units: Unit[] = [];
  const paragraphs = text.replace(/\r\n?/g, '\n').split(/\n\s*\n/);
  for (const raw of paragraphs) {
    const paragraph = raw.trim();
    if (!paragraph) continue;
    const lines = markdown ? splitAtHeadings(paragraph) : [paragraph];
    for (const block of lines) {
      const heading = markdown && HEADING.test(block);
      const tokens = tokenizer.countTokens(block);
      if (tokens <= budget) {
        units.push({ text: block, tokens, heading, separator: '\n\n' });
        continue;
      }
      let first = true;
      for (const sentence of splitSentences(block, tokenizer, budget)) {
        units.push({ ...sentence, heading: heading && first, separator: first ? '\n\n' : ' ' });
        first = false;
      }
    }
  }
  return units;
}

/** A markdown paragraph cut before each heading line. */
function splitAtHeadings(paragraph: string): string[] {
  const out: string[] = [];
  let block: string[] = [];
  for (const line of paragraph.split('\n')) {
    if (HEADING.test(line) && block.length) {
      out.push(block.join('\n'));
      block = [];
    }
    block.push(line);
  }
  if (block.length) out.push(block.join('\n'));
  return out;
}

function splitSentences(text: string, tokenizer: ITextTokenizer, budget: number): Array<{ text: string; tokens: number }> {
  const out: Array<{ text: string; tokens: number }> = [];
  for (const raw of text.split(SENTENCE_END)) {
    const sentence = raw.trim();
    if (!sentence) continue;
    const tokens = tokenizer.countTokens(sentence);
    if (tokens <= budget) out.push({ text: sentence, tokens });
    else out.push(...splitWords(sentence, tokenizer, budget));
  }
  return out;
}

function splitWords(text: string, tokenizer: ITextTokenizer, budget: number): Array<{ text: string; tokens: number }> {
  const out: Array<{ text: string; tokens: number }> = [];
  let current = '';
  let currentTokens = 0;
  for (const word of text.split(/\s+/)) {
    const wordTokens = tokenizer.countTokens(current ? ` ${word}` : word);
    if (currentTokens + wordTokens <= budget) {
      current = current ? `${current} ${word}` : word;
      currentTokens += wordTokens;
      continue;
    }
    if (current) out.push({ text: current, tokens: tokenizer.countTokens(current) });
    current = '';
    currentTokens = 0;
    const alone = tokenizer.countTokens(word);
    if (alone <= budget) {
      current = word;
      currentTokens = alone;
    } else {
      // a "word" longer than a chunk (a URL, base64...): cut it by tokens
      const pieces = tokenizer.getTokens(word);
      for (let i = 0; i < pieces.length; i += budget) {
        const piece = pieces.slice(i, i + budget).join('');
        out.push({ text: piece, tokens: tokenizer.countTokens(piece) });
      }
    }
  }
  if (current) out.push({ text: current, tokens: tokenizer.countTokens(current) });
  return out;
}
