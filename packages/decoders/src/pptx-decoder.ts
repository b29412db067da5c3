import type { ContentSection, ExtractedContent, IContentDecoder } from '@km/core';
import { checkAborted, checkFileSize, DEFAULT_LIMITS, overLimit, TextBudget, unreadable, type DecoderLimits } from './limits.js';
import { readRelationships, relsPathOf, targetOfType } from './ooxml/relationships.js';
import { readXml, type XmlSource } from './ooxml/xml.js';
import { readZipParts } from './zip/safe-unzip.js';

export const PPTX_MIME_TYPE = 'application/vnd.openxmlformats-officedocument.presentationml.presentation';
const PRESENTATION = 'ppt/presentation.xml';

/**
 * PowerPoint (.pptx): one section per slide, numbered as in the deck (hidden slides included),
 * with the slide title as a heading, the text of every shape and table, and the speaker notes.
 */
export class PptxDecoder implements IContentDecoder {
  readonly name = 'pptx';
  private readonly limits: DecoderLimits;

  constructor(limits: Partial<DecoderLimits> = {}) {
    this.limits = { ...DEFAULT_LIMITS, ...limits };
  }

  supportsMimeType(mimeType: string): boolean {
    return mimeType === PPTX_MIME_TYPE;
  }

  async decode(data: Buffer, options: { signal?: AbortSignal } = {}): Promise<ExtractedContent> {
    checkFileSize(data, this.limits, 'PowerPoint');
    const parts = readZipParts(
      data,
      (name) =>
        name.startsWith('ppt/') &&
        (name.endsWith('.xml') || name.endsWith('.rels')) &&
        !name.startsWith('ppt/slideLayouts/') &&
        !name.startsWith('ppt/slideMasters/'),
      this.limits,
      'PowerPoint',
      options.signal,
    );
    const presentation = parts.get(PRESENTATION);
    if (!presentation) throw unreadable('PowerPoint', `${PRESENTATION} is missing`);
    const rels = readRelationships(parts.get(relsPathOf(PRESENTATION)), PRESENTATION);
    const slideIds: string[] = [];
    readXml(presentation, {
      open(name, a) {
        if (name === 'sldId' && a['r:id']) slideIds.push(a['r:id']);
      },
    });
    if (slideIds.length > this.limits.maxPages)
      throw overLimit(`the presentation (${slideIds.length} slides)`, 'maxPages', this.limits.maxPages);
    const budget = new TextBudget(this.limits.maxTextChars, 'PowerPoint');
    const sections: ContentSection[] = [];
    slideIds.forEach((id, i) => {
      checkAborted(options.signal);
      const slidePath = rels.get(id)?.target;
      const slide = slidePath ? parts.get(slidePath) : undefined;
      if (!slidePath || !slide) return;
      const { title, body } = slideText(slide, false);
      const notesPath = targetOfType(readRelationships(parts.get(relsPathOf(slidePath)), slidePath), 'notesSlide');
      const notesXml = notesPath ? parts.get(notesPath) : undefined;
      const notes = notesXml ? slideText(notesXml, true).body : [];
      const lines = [`## Slide ${i + 1}${title.length ? `: ${title.join(' ')}` : ''}`, ...body];
      if (notes.length) lines.push('', `Speaker notes: ${notes.join('\n')}`);
      budget.take(lines.reduce((n, line) => n + line.length + 1, 0));
      sections.push({ number: i + 1, text: lines.join('\n'), sentencesAreComplete: true });
    });
    return { sections, mimeType: 'text/markdown' };
  }
}

/** Paragraphs of a slide (title apart), or of a notes page (its body placeholder only). */
function slideText(xml: XmlSource, notes: boolean): { title: string[]; body: string[] } {
  const title: string[] = [];
  const body: string[] = [];
  let placeholder: string | undefined;
  let paragraph = '';
  let inText = false;
  let shapeDepth = 0;
  readXml(xml, {
    open(name, a) {
      if (name === 'sp') {
        shapeDepth++;
        placeholder = undefined;
      } else if (name === 'ph') placeholder = a.type ?? 'body';
      else if (name === 'p') paragraph = '';
      else if (name === 't') inText = true;
      else if (name === 'br') paragraph += '\n';
    },
    text(text) {
      if (inText) paragraph += text;
    },
    close(name) {
      if (name === 't') inText = false;
      else if (name === 'sp') shapeDepth--;
      else if (name === 'p') {
        const text = paragraph.trim();
        if (!text) return;
        const isTitle = placeholder === 'title' || placeholder === 'ctrTitle';
        if (notes) {
          if (placeholder === 'body') body.push(text);
        } else if (isTitle && shapeDepth > 0) title.push(text);
        else if (placeholder !== 'sldNum' && placeholder !== 'dt' && placeholder !== 'ftr') body.push(text);
      }
    },
  });
  return { title, body };
}
