import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { request as httpRequest, type IncomingMessage, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import type { Readable } from 'node:stream';
import { InvalidInputError, KmError } from '../errors/km-error.js';
import { detectFileType, FILE_TYPE_HEAD_BYTES } from '../decoders/detect-file-type.js';
import { BackoffPolicy } from '../retry/backoff-policy.js';
import { parseRetryAfterMs } from '../retry/retry-after.js';
import { withRetries } from '../retry/with-retries.js';
import { isBlockedAddress } from './address-policy.js';

/** A downloaded web page. */
export interface WebPage {
  /** Final URL, after redirects. */
  url: string;
  mimeType: string;
  data: Buffer;
  /** The response's `ETag` header, when it sent one (`W/` marks a weak one). */
  etag?: string;
}

/** Fetches a URL for `importWebPage`. */
export interface IWebPageFetcher {
  fetch(url: string, signal?: AbortSignal): Promise<WebPage>;
}

/** Options of {@link WebPageFetcher}. */
export interface WebPageFetcherOptions {
  /** Largest body accepted (after decompression), in bytes. @default 10 MiB */
  maxBytes?: number;
  /** Time limit of the whole fetch, redirects and retries included, in ms. @default 30000 */
  timeoutMs?: number;
  /** Redirects followed before giving up. @default 5 */
  maxRedirects?: number;
  /** Retries of a transient failure (connection error, 429, 5xx); a server's Retry-After is honoured. @default 2 */
  retries?: number;
  /** Ceiling of the first retry's delay, doubled each time, with full jitter (see `BackoffPolicy`). @default 500 */
  retryDelayMs?: number;
  /**
   * Let imports reach loopback, private, link-local and metadata addresses. Off by default:
   * a URL given by a user must not become a way into your network (SSRF).
   * @default false
   */
  allowPrivateNetworks?: boolean;
  /** @default 'km-web-importer/1.0' */
  userAgent?: string;
  /** Decides which resolved addresses are refused. @default isBlockedAddress */
  isBlocked?: (address: string) => boolean;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * Fetches http and https URLs for web imports: bounded redirects, size and time limits,
 * retries of transient failures, content type decided by `detectFileType` with `declaredFirst`
 * (a specific `Content-Type` that agrees with the bytes, then the URL path's extension, then
 * the bytes: `…/blob/main/README.md` served as `text/html` is HTML). Every
 * connection, the first and each redirect's, goes only to addresses that passed the address
 * policy after DNS resolution (the checked address is the one connected to, so DNS rebinding
 * cannot slip past): loopback, private, link-local and metadata addresses are refused unless
 * `allowPrivateNetworks` is set.
 *
 * ```ts
 * new KernelMemoryBuilder().withWebPageFetcher(new WebPageFetcher({ maxBytes: 5_000_000 }))
 * ```
 */
export class WebPageFetcher implements IWebPageFetcher {
  private readonly maxBytes: number;
  private readonly timeoutMs: number;
  private readonly maxRedirects: number;
  private readonly retries: number;
  private readonly backoff: BackoffPolicy;
  private readonly allowPrivate: boolean;
  private readonly userAgent: string;
  private readonly isBlocked: (address: string) => boolean;

  constructor(options: WebPageFetcherOptions = {}) {
    this.maxBytes = options.maxBytes ?? 10 * 1024 * 1024;
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.maxRedirects = options.maxRedirects ?? 5;
    this.retries = options.retries ?? 2;
    // Waits never outlast the fetch's own time limit.
    this.backoff = new BackoffPolicy({ initialDelayMs: options.retryDelayMs ?? 500, maxDelayMs: this.timeoutMs });
    this.allowPrivate = options.allowPrivateNetworks ?? false;
    this.userAgent = options.userAgent ?? 'km-web-importer/1.0';
    this.isBlocked = options.isBlocked ?? isBlockedAddress;
  }

  async fetch(url: string, signal?: AbortSignal): Promise<WebPage> {
    let current = parseHttpUrl(url);
    const timeout = AbortSignal.timeout(this.timeoutMs);
    const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
    for (let redirects = 0; ; redirects++) {
      const response = await this.withRetries(current, combined, timeout);
      if ('location' in response) {
        if (redirects >= this.maxRedirects) {
          throw new KmError('unsupported_content', `${url}: more than ${this.maxRedirects} redirects (maxRedirects)`);
        }
        current = parseHttpUrl(new URL(response.location, current).href);
        continue;
      }
      const fileName = current.pathname.split('/').pop() ?? '';
      const mimeType = detectFileType({
        fileName,
        declaredType: response.contentType,
        head: response.data.subarray(0, FILE_TYPE_HEAD_BYTES),
        // As KM, the server's Content-Type first: a URL's extension often names what the page is about, not what it is.
        declaredFirst: true,
      });
      const page: WebPage = { url: current.href, mimeType, data: response.data };
      if (response.etag) page.etag = response.etag;
      return page;
    }
  }

  private async withRetries(url: URL, signal: AbortSignal, timeout: AbortSignal): Promise<Fetched> {
    try {
      return await withRetries(() => this.once(url, signal), {
        maxAttempts: this.retries + 1,
        backoff: this.backoff,
        // A failure that is not a KmError (a reset connection, a DNS error) is worth another try.
        isRetryable: (e) => (e instanceof KmError ? e.transient : true),
        signal,
      });
    } catch (e) {
      if (timeout.aborted)
        throw new KmError('transient', `${url.href}: no answer within ${this.timeoutMs} ms (timeoutMs)`, { transient: true, cause: e });
      if (signal.aborted) throw new KmError('aborted', `${url.href}: aborted`, { cause: e });
      throw e instanceof KmError ? e : new KmError('transient', `${url.href}: ${(e as Error).message}`, { transient: true, cause: e });
    }
  }

  private once(url: URL, signal: AbortSignal): Promise<Fetched> {
    const literal = url.hostname.replace(/^\[|\]$/g, '');
    if (isIP(literal) && !this.allowPrivate && this.isBlocked(literal)) {
      return Promise.reject(blockedError(url, literal));
    }
    const options: RequestOptions = {
      method: 'GET',
      signal,
      lookup: this.allowPrivate ? undefined : guardedLookup(url, this.isBlocked),
      headers: { 'user-agent': this.userAgent, accept: '*/*', 'accept-encoding': 'gzip, deflate, br' },
    };
    const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
    return new Promise<Fetched>((resolve, reject) => {
      const req = request(url, options, (res) => {
        const status = res.statusCode ?? 0;
        if (REDIRECTS.has(status) && res.headers.location) {
          res.resume();
          return resolve({ location: res.headers.location });
        }
        if (status < 200 || status >= 300) {
          res.resume();
          const transient = status === 408 || status === 429 || status >= 500;
          const retryAfterMs = transient ? parseRetryAfterMs({ get: (name) => headerText(res.headers[name]) }) : undefined;
          return reject(
            new KmError(transient ? 'transient' : 'unsupported_content', `GET ${url.href} answered ${status}`, { transient, retryAfterMs }),
          );
        }
        readBody(res, this.maxBytes, url).then(
          (data) => resolve({ data, contentType: res.headers['content-type'], etag: res.headers.etag }),
          reject,
        );
      });
      req.on('error', reject);
      req.end();
    });
  }
}

type Fetched = { location: string } | { data: Buffer; contentType: string | undefined; etag: string | undefined };

function parseHttpUrl(url: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new InvalidInputError('invalid_argument', `${JSON.stringify(url)} is not a URL`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new InvalidInputError('invalid_argument', `only http and https URLs can be imported, got ${parsed.protocol}`);
  }
  if (parsed.username || parsed.password) {
    throw new InvalidInputError('invalid_argument', 'URLs with credentials cannot be imported');
  }
  return parsed;
}

function blockedError(url: URL, address: string): KmError {
  return new InvalidInputError(
    'invalid_argument',
    `${url.href} resolves to ${address}, a loopback, private, link-local or metadata address; web imports refuse it unless allowPrivateNetworks is set`,
  );
}

/** A DNS lookup that fails when any resolved address is refused by the policy. */
function guardedLookup(url: URL, isBlocked: (address: string) => boolean): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error, '', 0);
      const blocked = addresses.find((a) => isBlocked(a.address));
      if (blocked || addresses.length === 0) return callback(blockedError(url, blocked?.address ?? 'no address'), '', 0);
      if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
      callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  };
}

async function readBody(res: IncomingMessage, maxBytes: number, url: URL): Promise<Buffer> {
  const declared = Number(res.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) {
    res.destroy();
    throw new KmError('content_too_large', `${url.href} is ${declared} bytes, more than the ${maxBytes} allowed (maxBytes)`);
  }
  const encoding = String(res.headers['content-encoding'] ?? '').toLowerCase();
  const stream: Readable =
    encoding === 'gzip' || encoding === 'x-gzip'
      ? res.pipe(createGunzip())
      : encoding === 'deflate'
        ? res.pipe(createInflate())
        : encoding === 'br'
          ? res.pipe(createBrotliDecompress())
          : res;
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of stream) {
      size += (chunk as Buffer).length;
      if (size > maxBytes) throw new KmError('content_too_large', `${url.href} is larger than the ${maxBytes} bytes allowed (maxBytes)`);
      chunks.push(chunk as Buffer);
    }
  } catch (e) {
    res.destroy();
    if (e instanceof KmError) throw e;
    throw new KmError('transient', `${url.href}: the body could not be read: ${(e as Error).message}`, { transient: true, cause: e });
  }
  return Buffer.concat(chunks);
}

function headerText(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
