import { ListObjectsV2Command, type _Object, type S3Client } from '@aws-sdk/client-s3';

/** One page of a listing: the objects and the "folders" (common prefixes) directly under a prefix. */
export interface ListingPage {
  objects: _Object[];
  folders: string[];
}

/**
 * Every page of `ListObjectsV2` under `prefix`, following continuation tokens. With `delimiter`
 * `/` the objects are those directly under it and `folders` the next level; without, every
 * object under it at any depth. `from.startAfter` starts after that key (the first page only: a
 * continuation token carries it on); `from.pageSize` asks for at most that many keys a page;
 * `from.signal` aborts the request in flight.
 */
export async function* listPages(
  client: S3Client,
  bucket: string,
  prefix: string,
  delimiter?: '/',
  from: { startAfter?: string | undefined; pageSize?: number; signal?: AbortSignal | undefined } = {},
): AsyncGenerator<ListingPage> {
  let token: string | undefined;
  do {
    const page = await client.send(
      new ListObjectsV2Command({
        Bucket: bucket,
        ...(prefix !== '' ? { Prefix: prefix } : {}),
        ...(delimiter ? { Delimiter: delimiter } : {}),
        ...(token ? { ContinuationToken: token } : from.startAfter ? { StartAfter: from.startAfter } : {}),
        ...(from.pageSize ? { MaxKeys: from.pageSize } : {}),
      }),
      from.signal ? { abortSignal: from.signal } : {},
    );
    yield {
      objects: page.Contents ?? [],
      folders: (page.CommonPrefixes ?? []).flatMap((p) => (p.Prefix ? [p.Prefix] : [])),
    };
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token);
}
