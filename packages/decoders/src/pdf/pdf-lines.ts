/** A text item of pdf.js `getTextContent()`, the fields read. */
export interface PdfTextItem {
  str?: string;
  hasEOL?: boolean;
  /** `[a, b, c, d, x, y]`: scale (the font size) and position on the page. */
  transform?: number[];
  height?: number;
}

/** A line of a PDF page. */
export interface PdfLine {
  text: string;
  /** Font size of most of its characters. */
  size: number;
  /** Baseline height from the bottom of the page (greater is higher). */
  y: number;
}

/** The lines of a page, in the order pdf.js gives them (the content's order), blank lines left out. */
export function pdfLines(items: readonly PdfTextItem[]): PdfLine[] {
  const lines: PdfLine[] = [];
  let text = '';
  let y: number | undefined;
  let sizes = new Map<number, number>();
  const end = (): void => {
    const clean = text.replace(/\s+/g, ' ').trim();
    if (clean) {
      const size = [...sizes].reduce((best, entry) => (entry[1] > best[1] ? entry : best), [0, -1] as [number, number])[0];
      lines.push({ text: clean, size, y: y ?? 0 });
    }
    text = '';
    y = undefined;
    sizes = new Map();
  };
  for (const item of items) {
    const str = item.str ?? '';
    if (str.trim()) {
      const size = Math.round(fontSize(item) * 2) / 2;
      sizes.set(size, (sizes.get(size) ?? 0) + str.trim().length);
      y ??= item.transform?.[5];
    }
    text += str;
    if (item.hasEOL) end();
  }
  end();
  return lines;
}

function fontSize(item: PdfTextItem): number {
  const t = item.transform;
  const scale = t ? Math.hypot(t[2] ?? 0, t[3] ?? 0) : 0;
  return scale || item.height || 0;
}
