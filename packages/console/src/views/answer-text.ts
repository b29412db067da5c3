import { type Child, h } from '../dom.js';

/** A reference in a quote, `[2, page 3]`: the source's number (1-based) and where in it. */
export interface QuoteReference {
  source: number;
  where: string;
}

/** A piece of an answer: a paragraph of text, or a quoted sentence with its references. */
export type AnswerPart = { kind: 'text'; text: string } | { kind: 'quote'; text: string; references: QuoteReference[] };

/** A quote line of an extractive answer: `> "…" [1, page 3][2]`. */
const QUOTE_LINE = /^>\s*"(.*)"\s*((?:\[\d+(?:,[^\]]*)?\])+)\s*$/;
const REFERENCE = /\[(\d+)(?:,\s*([^\]]*))?\]/g;

/**
 * Reads an answer's text into paragraphs and quotes. The extractive answer (no language model)
 * quotes sentences as `> "…" [n, where]` lines, `n` numbering the answer's sources; anything
 * else (a model's answer, the preamble) is text, one part per paragraph.
 */
export function parseAnswer(text: string): AnswerPart[] {
  const parts: AnswerPart[] = [];
  let paragraph: string[] = [];
  const flush = () => {
    if (paragraph.length > 0) parts.push({ kind: 'text', text: paragraph.join('\n') });
    paragraph = [];
  };
  for (const line of text.split('\n')) {
    const quote = QUOTE_LINE.exec(line);
    if (quote) {
      flush();
      const references = [...quote[2]!.matchAll(REFERENCE)].map((m) => ({ source: Number(m[1]), where: (m[2] ?? '').trim() }));
      parts.push({ kind: 'quote', text: quote[1]!, references });
    } else if (line.trim() === '') flush();
    else paragraph.push(line);
  }
  flush();
  return parts;
}

/**
 * The answer as elements: paragraphs, and each quote as a `blockquote` (no raw `>` or quote
 * marks) followed by one button per reference that opens the cited passage (`openSource(n)`).
 */
export function renderAnswer(
  text: string,
  openSource: (source: number) => void,
  sourceName: (source: number) => string | undefined,
): Child[] {
  return parseAnswer(text).map((part) => {
    if (part.kind === 'text') return h('p', { class: 'answer-text' }, part.text);
    return h(
      'figure',
      { class: 'quote' },
      h('blockquote', {}, part.text),
      h(
        'figcaption',
        {},
        ...part.references.map((ref) => {
          const name = sourceName(ref.source);
          return h(
            'button',
            {
              type: 'button',
              class: 'cite',
              title: name ? `${name}${ref.where ? `, ${ref.where}` : ''}` : `source ${ref.source}`,
              onclick: () => openSource(ref.source),
            },
            `[${ref.source}${ref.where ? `, ${ref.where}` : ''}]`,
          );
        }),
      ),
    );
  });
}
