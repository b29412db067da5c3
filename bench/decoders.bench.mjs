// Decoder throughput (@km/decoders): PDF pages per second on a generated 200-page PDF, and DOCX
// megabytes per second on a generated 5 MB Word file (paragraphs, headings and tables). Then peak
// memory (maxRSS, one child process per case so that peaks do not mix) while zip bombs are refused:
// a 1.5 MB .docx that inflates to 1.5 GiB, one, and three at once (three worker threads decoding
// at the same time: decode is synchronous, so three in one thread would run one after another),
// next to the normal footprint.
//
//   pnpm --filter @km/bench bench:decoders
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { fileURLToPath } from 'node:url';
import { constants, crc32, deflateRawSync } from 'node:zlib';
import { strToU8, zipSync } from 'fflate';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { DocxDecoder, PdfDecoder } from '@km/decoders';

const WORDS =
  'memory service documents answers questions citations pipeline partitions embeddings vector records search filters tags index storage queue worker'.split(
    ' ',
  );
let seed = 7;
const random = () => (seed = (seed * 1664525 + 1013904223) >>> 0) / 2 ** 32;
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
      const row = () =>
        `<w:tr>${Array.from({ length: 4 }, () => `<w:tc><w:p><w:r><w:t>${sentence(3)}</w:t></w:r></w:p></w:tc>`).join('')}</w:tr>`;
      block = `<w:tbl>${Array.from({ length: 6 }, row).join('')}</w:tbl>`;
    } else
      block = `<w:p><w:r><w:rPr><w:b/></w:rPr><w:t xml:space="preserve">${sentence(20)} </w:t></w:r><w:r><w:t>${sentence(25)}</w:t></w:r></w:p>`;
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

const MIB = 1024 * 1024;
const rssMb = () => process.resourceUsage().maxRSS / 1024;

/** A .docx whose document.xml inflates to `bytes` zeros: one deflated MiB repeated, never held inflated. */
function makeBomb(bytes) {
  const block = deflateRawSync(Buffer.alloc(MIB), { finishFlush: constants.Z_SYNC_FLUSH });
  const zeros = Buffer.alloc(MIB);
  const parts = [];
  let crc = 0;
  for (let left = bytes; left > 0; left -= MIB) parts.push(block), (crc = crc32(zeros, crc));
  parts.push(deflateRawSync(Buffer.alloc(0)));
  const entries = [
    { name: '_rels/.rels', compressed: deflateRawSync('<Relationships/>'), size: 16, crc: crc32('<Relationships/>') },
    { name: 'word/document.xml', compressed: Buffer.concat(parts), size: bytes, crc },
  ];
  const locals = [];
  const central = [];
  let offset = 0;
  for (const e of entries) {
    const name = Buffer.from(e.name);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0), local.writeUInt16LE(20, 4), local.writeUInt16LE(8, 8), local.writeUInt32LE(e.crc >>> 0, 14);
    local.writeUInt32LE(e.compressed.length, 18), local.writeUInt32LE(e.size >>> 0, 22), local.writeUInt16LE(name.length, 26);
    const header = Buffer.alloc(46);
    header.writeUInt32LE(0x02014b50, 0),
      header.writeUInt16LE(20, 4),
      header.writeUInt16LE(20, 6),
      header.writeUInt16LE(8, 10),
      header.writeUInt32LE(e.crc >>> 0, 16);
    header.writeUInt32LE(e.compressed.length, 20),
      header.writeUInt32LE(e.size >>> 0, 24),
      header.writeUInt16LE(name.length, 28),
      header.writeUInt32LE(offset, 42);
    locals.push(local, name, e.compressed), central.push(header, name);
    offset += 30 + name.length + e.compressed.length;
  }
  const directory = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0),
    end.writeUInt16LE(entries.length, 8),
    end.writeUInt16LE(entries.length, 10),
    end.writeUInt32LE(directory.length, 12),
    end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

/**
 * One worker thread of a memory case: decodes a small file (modules loaded), says `ready`, waits
 * for `go`, then decodes the file and answers with `ok` or the error code.
 */
async function decodeInWorker(file) {
  const decoder = new DocxDecoder();
  await decoder.decode(makeDocx(64 * 1024));
  const data = readFileSync(file);
  parentPort.postMessage('ready');
  await new Promise((resolve) => parentPort.once('message', resolve));
  parentPort.postMessage(
    await decoder.decode(data).then(
      () => 'ok',
      (e) => e.code,
    ),
  );
}

/**
 * One memory case, in a child process: one worker thread per file to decode (three for `three`,
 * so that the decodes really run at the same time), all warmed up before `before` is taken; prints
 * {before, peak} maxRSS in MB (the whole process, every thread) and each decode's result.
 */
async function rssCase(kind, file) {
  const copies = kind === 'three' ? 3 : 1;
  const workers = Array.from({ length: copies }, () => new Worker(new URL(import.meta.url), { workerData: { file } }));
  const next = (worker) =>
    new Promise((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    });
  await Promise.all(workers.map(next)); // every worker ready
  const before = rssMb();
  const results = workers.map(next);
  for (const worker of workers) worker.postMessage('go');
  const codes = await Promise.all(results);
  const peak = rssMb();
  await Promise.all(workers.map((w) => w.terminate()));
  process.stdout.write(JSON.stringify({ before, peak, codes }));
}

if (!isMainThread) {
  await decodeInWorker(workerData.file);
} else if (process.argv[2] === '--rss-case') {
  await rssCase(process.argv[3], process.argv[4]);
  process.exit(0);
} else {
  await main();
}

async function main() {
  const pdf = await makePdf(200);
  const pdfDecoder = new PdfDecoder();
  const pages = (await pdfDecoder.decode(pdf)).sections.length;
  const pdfMs = await best(3, () => pdfDecoder.decode(pdf));
  console.log(
    `PDF: ${pages} pages, ${(pdf.length / 1e6).toFixed(2)} MB: ${pdfMs.toFixed(0)} ms, ${((pages / pdfMs) * 1000).toFixed(0)} pages/s (best of 3)`,
  );

  const docx = makeDocx(5 * 1024 * 1024);
  const docxDecoder = new DocxDecoder();
  const chars = (await docxDecoder.decode(docx)).sections.reduce((n, s) => n + s.text.length, 0);
  const docxMs = await best(3, () => docxDecoder.decode(docx));
  console.log(
    `DOCX: ${(docx.length / 1e6).toFixed(2)} MB, ${(chars / 1e6).toFixed(2)} M characters of text: ${docxMs.toFixed(0)} ms, ${(docx.length / 1e6 / (docxMs / 1000)).toFixed(1)} MB/s (best of 3)`,
  );

  // Peak memory while zip bombs are refused, each case in its own process.
  const dir = mkdtempSync(join(tmpdir(), 'km-bench-bombs-'));
  try {
    const bomb = join(dir, 'bomb.docx');
    writeFileSync(bomb, makeBomb(1536 * MIB));
    const normal = join(dir, 'normal.docx');
    writeFileSync(normal, makeDocx(5 * MIB));
    const run = (kind, file) =>
      JSON.parse(
        execFileSync(process.execPath, [fileURLToPath(import.meta.url), '--rss-case', kind, file], { encoding: 'utf8', timeout: 60_000 }),
      );
    const print = (name, value, unit) => console.log(`${name} ${+value.toFixed(1)} ${unit}`);
    const base = run('one', normal);
    print('decoders_rss_before_mb', base.before, 'MB');
    print('decoders_rss_peak_normal_docx_5mb_mb', base.peak, 'MB');
    console.log(`# zip bomb: ${(readFileSync(bomb).length / 1e6).toFixed(2)} MB .docx inflating to 1.5 GiB`);
    for (const kind of ['one', 'three']) {
      const r = run(kind, bomb);
      print(`decoders_rss_peak_${kind}_bomb${kind === 'one' ? '' : 's'}_mb`, r.peak, 'MB');
      print(`decoders_rss_growth_${kind}_bomb${kind === 'one' ? '' : 's'}_mb`, r.peak - r.before, 'MB');
      console.log(
        `# ${kind} bomb(s), ${r.codes.length} worker thread(s) decoding at once: ${r.codes.join(', ')}; ${r.before.toFixed(1)} MB before (threads warmed up)`,
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
