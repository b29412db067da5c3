import { PassThrough, type Readable } from 'node:stream';

/**
 * The body of a GetObject as a stream whose errors are km errors: a download that breaks midway
 * fails the returned stream with `translate(error)` (e.g. `transient` for a reset connection), and
 * destroying the returned stream early destroys the body, which releases its connection.
 */
export function translatedStream(body: Readable, translate: (error: unknown) => Error): Readable {
  const out = new PassThrough();
  body.once('error', (error) => out.destroy(translate(error)));
  out.once('close', () => {
    if (!body.destroyed) body.destroy();
  });
  body.pipe(out);
  return out;
}
