import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { ExtractedContent } from '@km/core';
import { KmError } from '@km/core';
import { withTimeout } from '@km/core/connector';
import { LimitedDecoder } from './limited-decoder.js';
import { checkAborted, overLimit, unreadable, type DecoderLimits } from './limits.js';
import { imageSize } from './image-size.js';

/** Options of {@link ImageOcrDecoder}. */
export interface ImageOcrOptions {
  /** Tesseract page segmentation mode; 6 (one uniform block) reads skewed scans best. @default 6 */
  pageSegMode?: number;
  /** Folder holding `eng.traineddata.gz`. @default the `@tesseract.js-data/eng` package's `4.0.0_best_int` */
  langPath?: string;
  /** Stop the OCR worker after this long without work, in ms. @default 10000 */
  idleMs?: number;
  limits?: Partial<DecoderLimits>;
}

interface OcrWorker {
  setParameters(parameters: Record<string, string>): Promise<unknown>;
  recognize(image: Buffer): Promise<{ data: { text: string } }>;
  terminate(): Promise<unknown>;
}

const IMAGE_TYPES = new Set(['image/png', 'image/jpeg', 'image/jpg', 'image/tiff', 'image/bmp', 'image/webp']);

/**
 * Images (PNG, JPEG, TIFF, BMP, WebP) through OCR with tesseract.js, offline: the English
 * language data comes from the `@tesseract.js-data/eng` npm package (nothing is fetched).
 * One OCR worker thread serves the decoder and stops when idle. When the OCR engine cannot
 * load, images fail with a `not_configured` error that says what to install.
 */
export class ImageOcrDecoder extends LimitedDecoder {
  readonly name = 'ocr';
  protected readonly format = 'image';
  protected readonly mimeTypes: ReadonlySet<string> = IMAGE_TYPES;
  private worker: Promise<OcrWorker> | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  private idleTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly options: ImageOcrOptions = {},
    private readonly importTesseract: () => Promise<unknown> = () => import('tesseract.js'),
  ) {
    super(options.limits);
  }

  protected async decodeWithinLimits(data: Buffer, signal: AbortSignal | undefined): Promise<ExtractedContent> {
    const size = imageSize(data);
    if (size && size.width * size.height > this.limits.maxImagePixels) {
      throw overLimit(`the image (${size.width}×${size.height} pixels)`, 'maxImagePixels', this.limits.maxImagePixels);
    }
    // One image at a time on the worker; a queued one may be cancelled before it starts.
    const run = this.queue.then(async () => {
      checkAborted(signal);
      const worker = await this.start();
      try {
        return (await worker.recognize(data)).data.text;
      } catch (e) {
        throw unreadable('image', e instanceof Error ? e.message : String(e), e);
      }
    });
    this.queue = run.catch(() => undefined).finally(() => this.scheduleIdleStop());
    const text = (await run).replace(/[ \t]+\n/g, '\n').trim();
    return { sections: text ? [{ number: 1, text, sentencesAreComplete: false }] : [], mimeType: 'text/plain' };
  }

  /** Stops the OCR worker now. */
  async close(): Promise<void> {
    clearTimeout(this.idleTimer);
    const worker = this.worker;
    this.worker = undefined;
    await (await worker?.catch(() => undefined))?.terminate();
  }

  private start(): Promise<OcrWorker> {
    clearTimeout(this.idleTimer);
    this.worker ??= this.createWorker().catch((e: unknown) => {
      this.worker = undefined;
      throw e;
    });
    return this.worker;
  }

  private async createWorker(): Promise<OcrWorker> {
    try {
      const { createWorker } = (await this.importTesseract()) as {
        createWorker(lang: string, oem: number, options: Record<string, unknown>): Promise<OcrWorker>;
      };
      const langPath =
        this.options.langPath ??
        join(dirname(createRequire(import.meta.url).resolve('@tesseract.js-data/eng/package.json')), '4.0.0_best_int');
      const worker = await withTimeout(
        createWorker('eng', 1, { langPath, gzip: true, cacheMethod: 'none', logger: () => undefined, errorHandler: () => undefined }),
        60_000,
        () => new Error('the OCR engine did not start within 60 s'),
      );
      await worker.setParameters({ tessedit_pageseg_mode: String(this.options.pageSegMode ?? 6) });
      return worker;
    } catch (e) {
      throw new KmError(
        'not_configured',
        `no OCR engine available to read images: ${e instanceof Error ? e.message : String(e)} (install tesseract.js and @tesseract.js-data/eng)`,
        {
          cause: e,
        },
      );
    }
  }

  private scheduleIdleStop(): void {
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => void this.close(), this.options.idleMs ?? 10_000);
  }
}
