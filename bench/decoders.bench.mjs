// Decoder throughput (@km/decoders): PDF pages per second on a generated 200-page PDF, and DOCX
// megabytes per second on a generated 5 MB Word file (paragraphs, headings and tables).
//
//   pnpm --filter @km/bench bench:decoders
import { strToU8, zipSync } from 'fflate';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { DocxDecoder, PdfDecoder } from '@km/decoders';

const WORDS = 'memory service documents answers questions citations pipeline partitions embeddings vector records search filters tags index storage queue worker'.split(' ');
let seed = 7;
const random = () => ((seed = (seed * 1664525 + 1013904223) >>> 0) / 2 ** 32);
const sentence = (n) => {
  const words = Array.from({ length: n }, () => WORDS[Math.floor(random() * WORDS.length)]);
  return `${words.join(' ').replace(/^./, (c) => c.toUpperCase())}.`;
};

async function makePdf(pages) {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (let p = 0; p < pages; p++) {
    const page = doc.addPage([612, 792]);
    for (let line = 0; line < 45; line++) page.drawText(sentence(12), { x: 40, y: 750 - line * 16, size: 10, font });
  }
  return Buffer.from(await doc.save());
}

function makeDocx(targetBytes) {
  const W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"';
  const parts = [];
  let size = 0;
  for (let i = 0; size < targetBytes; i++) {
    let block;
    if (i % 20 === 0) block = `<w:p><w:pPr><w:pStyle w:val="Heading2"/></w:pPr><w:r><w:t>${sentence(5)}</w:t></w:r></w:p>`;
    else if (i % 20 === 10) {
      const row = () => `<w:tr>${Array.from({ length: 4 }, () => `<w:tc><w:p><w:r><w:t>${sentence(3)}</w:t></w:r></w:p></w:tc>`).join('')}</w:tr>`;
      block = `<w:tbl>${Array.from({ length: 6 }, row).join('')}</w:tbl>`;
    } else block = `<w:p><w:r><w:rPr><w:b/></w:rPr><w:t xml:space="preserve">${sentence(20)} </w:t></w:r><w:r><w:t>${sentence(25)}</w:t></w:r></w:p>`;
    parts.push(block);
    size += block.length;
  }
  const xml = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document ${W}><w:body>${parts.join('')}</w:body></w:document>`;
  // Stored uncompressed so that the file itself is about 5 MB, as the target says.
  return Buffer.from(zipSync({ 'word/document.xml': [strToU8(xml), { level: 0 }], '_rels/.rels': strToU8('<Relationships/>') }));
}

async function best(runs, fn) {
  let min = Infinity;
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    await fn();
    min = Math.min(min, performance.now() - started);
  }
  return min;
}

const pdf = await makePdf(200);
const pdfDecoder = new PdfDecoder();
const pages = (await pdfDecoder.decode(pdf)).sections.length;
const pdfMs = await best(3, () => pdfDecoder.decode(pdf));
console.log(`PDF: ${pages} pages, ${(pdf.length / 1e6).toFixed(2)} MB: ${pdfMs.toFixed(0)} ms, ${((pages / pdfMs) * 1000).toFixed(0)} pages/s (best of 3)`);

const docx = makeDocx(5 * 1024 * 1024);
const docxDecoder = new DocxDecoder();
const chars = (await docxDecoder.decode(docx)).sections.reduce((n, s) => n + s.text.length, 0);
const docxMs = await best(3, () => docxDecoder.decode(docx));
console.log(`DOCX: ${(docx.length / 1e6).toFixed(2)} MB, ${(chars / 1e6).toFixed(2)} M characters of text: ${docxMs.toFixed(0)} ms, ${(docx.length / 1e6 / (docxMs / 1000)).toFixed(1)} MB/s (best of 3)`);
