import type { ITextTokenizer } from '../contracts/text-tokenizer.js';
import { InvalidInputError } from '../errors/km-error.js';
import { breadcrumb } from './breadcrumb.js';
import { HeadingPath, markdownHeading, type Heading } from './heading-path.js';

/** Options of {@link chunkText}. */
export interface ChunkOptions {
  /** Most tokens in one chunk, context, header and overlap included. @default 1000 */
  maxTokensPerChunk?: number;
  /** Tokens repeated from the end of a chunk at the start of the next. @default 100 */
  overlapTokens?: number;
  /** Text put at the top of every chunk, under its context (Kernel Memory's chunk header). @default none */
  chunkHeader?: string;
  /** Treat the text as markdown: headings start new chunks and make up the chunks' context. @default false */
  markdown?: boolean;
  /** The document's title: the first part of every chunk's context. @default none */
  title?: string;
}

/** A chunk and where it lies in its document. */
export interface Chunk {
  /** The chunk: `${context}\n\n${body}` when it has a context, else the body. */
  text: string;
  /**
   * One line, e.g. `Employee handbook › Leave › Parental leave`: the title, then the headings
   * the chunk lies under (see {@link breadcrumb}). Absent when there is nothing to say.
   */
  context?: string;
}

interface Block {
  text: string;
  /** Level of the heading the block opens with; 0 when it opens with none. */
  heading: number;
  /** Context of a chunk that opens with this block, and of one that starts inside it. */
  opening: string | undefined;
  within: string | undefined;
}

interface Unit {
  text: string;
  tokens: number;
  /** Level of the markdown heading this unit opens with (a good place to start a chunk); 0 for none. */
  heading: number;
  /** Separator put before this unit when it follows another. */
  separator: string;
  /** The block this unit is (part of). */
  block: Block;
  /** True for the first unit of its block. */
  first: boolean;
}

const SENTENCE_END = /(?<=[.!?。！？;])\s+|\n+/u;
const FENCE = /^\s{0,3}(```|~~~)/;

/**
 * Splits text into chunks of at most `maxTokensPerChunk` tokens: paragraphs first, then
 * sentences, then words, then tokens for text with no break at all. Consecutive chunks
 * share up to `overlapTokens` tokens of whole trailing sentences (or raw tokens when no
 * sentence fits). With `markdown`, a heading of level 1 to 3 starts a new chunk unless the
 * current one is under 1/8 full (tiny sections stay together), a deeper one once it is half full.
 * A chunk with a context (see {@link chunkWithContext}) starts with it.
 *
 * ```ts
 * chunkText(longText, new CL100KTokenizer(), { maxTokensPerChunk: 200, overlapTokens: 20 })
 * ```
 */
export function chunkText(text: string, tokenizer: ITextTokenizer, options: ChunkOptions = {}): string[] {
  return chunkWithContext(text, tokenizer, options).map((chunk) => chunk.text);
}

/**
 * {@link chunkText}, with each chunk's context apart: the breadcrumb of the `title` and the
 * markdown headings the chunk lies under, without what the chunk opens with, put at the top of
 * the chunk with a blank line (`${context}\n\n${chunk}`) and counted in its tokens. A context
 * worth more than a quarter of the budget is left out. `headings` is the heading path the text
 * starts under; it moves past the text's headings, so the next section of the same document
 * (the next page) goes on under them.
 */
export function chunkWithContext(
  text: string,
  tokenizer: ITextTokenizer,
  options: ChunkOptions = {},
  headings: HeadingPath = new HeadingPath(),
): Chunk[] {
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
  const costs = new Map<string, number>();
  const cost = (context: string | undefined): number => {
    if (context === undefined) return 0;
    let tokens = costs.get(context);
    if (tokens === undefined) costs.set(context, (tokens = tokenizer.countTokens(`${context}\n\n`)));
    return tokens;
  };
  const fitting = (context: string | undefined) => (cost(context) <= budget / 4 ? context : undefined);
  const blocks = toBlocks(text, options.markdown ?? false, headings, options.title?.trim()).map((b) => ({
    ...b,
    opening: fitting(b.opening),
    within: fitting(b.within),
  }));
  // Every unit fits a chunk under the costliest context.
  const reserve = blocks.reduce((most, b) => Math.max(most, cost(b.opening), cost(b.within)), 0);
  const units = toUnits(blocks, tokenizer, budget - reserve);
  const separatorTokens = tokenizer.countTokens('\n\n');
  const chunks: Chunk[] = [];
  let current: Unit[] = [];
  let currentTokens = 0;
  let context: string | undefined;
  let room = budget;
  const hasOwnContent = (): boolean => current.some((u) => u.separator !== OVERLAP);
  const costIn = (unit: Unit): number => unit.tokens + (current.length > 0 && unit.separator === '\n\n' ? separatorTokens : 0);
  const begin = (unit: Unit): void => {
    context = current.length === 0 && unit.first ? unit.block.opening : unit.block.within;
    room = budget - cost(context);
  };
  const emit = (): void => {
    const body = header + joinUnits(current);
    chunks.push(context === undefined ? { text: body } : { text: `${context}\n\n${body}`, context });
  };

  for (const unit of units) {
    if (hasOwnContent()) {
      const breakAtHeading = unit.heading > 0 && currentTokens >= room / (unit.heading <= 3 ? 8 : 2);
      if (breakAtHeading || currentTokens + costIn(unit) > room) {
        emit();
        // carry the overlap, unless a heading starts a section
        current = unit.heading > 0 ? [] : overlapUnits(current, overlap, tokenizer);
        currentTokens = current.reduce((n, u) => n + u.tokens, 0);
      }
    }
    if (!hasOwnContent()) {
      begin(unit);
      if (currentTokens + costIn(unit) > room) {
        // the overlap would leave no room
        current = [];
        currentTokens = 0;
        begin(unit);
      }
    }
    currentTokens += costIn(unit);
    current.push(unit);
  }
  if (hasOwnContent()) emit();
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
    if (u.heading > 0 || tokens + u.tokens > overlap) break;
    carried.unshift({ ...u, separator: OVERLAP });
    tokens += u.tokens;
  }
  if (carried.length === 0) {
    const last = units[units.length - 1]!;
    const pieces = tokenizer.getTokens(last.text);
    const tail = pieces.slice(-overlap).join('').trim();
    if (tail)
      carried.push({ text: tail, tokens: tokenizer.countTokens(tail), heading: 0, separator: OVERLAP, block: last.block, first: false });
  }
  return carried;
}

/**
 * The paragraphs of the text, cut before each markdown heading (outside code fences), with the
 * contexts of a chunk opening with each and of one starting inside it.
 */
function toBlocks(text: string, markdown: boolean, headings: HeadingPath, title: string | undefined): Block[] {
  const blocks: Block[] = [];
  const fence = { open: false };
  const parts = (): string[] => (title ? [title, ...headings.texts()] : headings.texts());
  let within = breadcrumb(parts());
  for (const raw of text.replace(/\r\n?/g, '\n').split(/\n\s*\n/)) {
    const paragraph = raw.trim();
    if (!paragraph) continue;
    for (const { text: block, heading } of markdown ? splitAtHeadings(paragraph, fence) : [{ text: paragraph }]) {
      if (heading) {
        headings.enter(heading);
        within = breadcrumb(parts());
      }
      const end = block.indexOf('\n');
      const opening = breadcrumb(parts(), end < 0 ? block : block.slice(0, end));
      blocks.push({ text: block, heading: heading?.level ?? 0, opening, within });
    }
  }
  return blocks;
}

/** Blocks as units of at most `budget` tokens: whole blocks, or their sentences, words, tokens. */
function toUnits(blocks: Block[], tokenizer: ITextTokenizer, budget: number): Unit[] {
  const units: Unit[] = [];
  for (const block of blocks) {
    const tokens = tokenizer.countTokens(block.text);
    if (tokens <= budget) {
      units.push({ text: block.text, tokens, heading: block.heading, separator: '\n\n', block, first: true });
      continue;
    }
    let first = true;
    for (const sentence of splitSentences(block.text, tokenizer, budget)) {
      units.push({ ...sentence, heading: first ? block.heading : 0, separator: first ? '\n\n' : ' ', block, first });
      first = false;
    }
  }
  return units;
}

/** A markdown paragraph cut before each heading line; lines inside a code fence are never headings. */
function splitAtHeadings(paragraph: string, fence: { open: boolean }): Array<{ text: string; heading?: Heading }> {
  const out: Array<{ text: string; heading?: Heading }> = [];
  let lines: string[] = [];
  let heading: Heading | undefined;
  const flush = (): void => {
    if (lines.length) out.push(heading ? { text: lines.join('\n'), heading } : { text: lines.join('\n') });
  };
  for (const line of paragraph.split('\n')) {
    const opens = fence.open ? undefined : markdownHeading(line);
    if (FENCE.test(line)) fence.open = !fence.open;
    if (opens) {
      flush();
      lines = [];
      heading = opens;
    }
    lines.push(line);
  }
  flush();
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
