import { InvalidInputError, KmError } from '../errors/km-error.js';
import { baseMimeType } from '../decoders/mime-types.js';

/** A downloaded web page. */
export interface WebPage {
  url: string;
  mimeType: string;
  data: Buffer;
}

/** Fetches a URL for `importWebPage`. `@km/decoders` supplies a hardened one. */
export interface IWebPageFetcher {
  fetch(url: string, signal?: AbortSignal): Promise<WebPage>;
}

/** Options of {@link BasicWebPageFetcher}. */
export interface BasicWebPageFetcherOptions {
  /** Largest body accepted, in bytes. @default 10 MiB */
  maxBytes?: number;
  /** Time limit of one fetch, in ms. @default 30000 */
  timeoutMs?: number;
}

/**
 * Fetches http and https URLs with a size and time limit and reports the content type.
 * It does not filter target addresses: use it only with URLs you trust.
 */
export class BasicWebPageFetcher implements IWebPageFetcher {
  private readonly maxBytes: number;
  private readonly timeoutMs: number;

  constructor(options: BasicWebPageFetcherOptions = {}) {
    this.maxBytes = options.maxBytes ?? 10 * 1024 * 1024;
    this.timeoutMs = options.timeoutMs ?? 30_000;
  }

  async fetch(url: string, signal?: AbortSignal): Promise<WebPage> {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new InvalidInputError('invalid_argument', `${JSON.stringify(url)} is not a URL`);
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
      throw new InvalidInputError('invalid_argument', `only http and https URLs can be imported, got ${parsed.protocol}`);
    }
    const timeout = AbortSignal.timeout(this.timeoutMs);
    const response = await fetch(parsed, { signal: signal ? AbortSignal.any([signal, timeout]) : timeout, redirect: 'follow' });
    if (!response.ok) {
      throw new KmError('unsupported_content', `GET ${parsed.href} answered ${response.status}`, { transient: response.status >= 500 || response.status === 429 });
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      size += chunk.length;
      if (size > this.maxBytes) {
        throw new KmError('content_too_large', `${parsed.href} is larger than ${this.maxBytes} bytes`);
      }
      chunks.push(Buffer.from(chunk));
    }
    return { url: response.url || parsed.href, mimeType: baseMimeType(response.headers.get('content-type') ?? 'text/html'), data: Buffer.concat(chunks) };
  }
}
