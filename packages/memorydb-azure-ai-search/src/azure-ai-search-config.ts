import { AzureKeyCredential, type SearchIndexClient, type SearchIndexClientOptions } from '@azure/search-documents';
import { InvalidInputError, type MemoryDbOptions } from '@km/core';

/** HNSW graph settings of new indexes; Azure AI Search's defaults (m 4, efConstruction 400, efSearch 500) when unset. */
export interface HnswSettings {
  m?: number;
  efConstruction?: number;
  efSearch?: number;
}

/** A credential the SDK takes: an Entra `TokenCredential` (from `@azure/identity`) or a key credential. */
export type SearchCredential = ConstructorParameters<typeof SearchIndexClient>[1];

/** How to reach Azure AI Search and how to lay out indexes. */
export interface AzureAiSearchMemoryDbOptions extends MemoryDbOptions {
  /** The service, e.g. `https://my-search.search.windows.net`. */
  endpoint: string;
  /** An admin API key, sent as the `api-key` header. Give this or `credential`. */
  apiKey?: string;
  /**
   * An Entra ID credential, e.g. `new DefaultAzureCredential()` from `@azure/identity`; its
   * identity needs the "Search Index Data Contributor" and "Search Service Contributor" roles.
   */
  credential?: SearchCredential;
  /** The Entra audience of sovereign clouds (e.g. `https://search.azure.us`). @default the public cloud's */
  audience?: string;
  /** Prepended to every Azure index name: lower-case letters, digits, `-`, `_`. @default 'km-' */
  indexPrefix?: string;
  /** Documents per indexing request (the service takes at most 1000 and 16 MB). @default 100 */
  batchSize?: number;
  /** HNSW settings of new indexes. @default the service's (m 4, efConstruction 400, efSearch 500) */
  hnsw?: HnswSettings;
  /** Retries of a failed request by the SDK (429 and 503 honour Retry-After). @default 3 */
  maxRetries?: number;
  /** Allows an `http://` endpoint (tests against a local server only). @default false */
  allowInsecureConnection?: boolean;
}

/** The credential of the options: exactly one of `apiKey` and `credential`. */
export function credentialOf(options: AzureAiSearchMemoryDbOptions): SearchCredential {
  if ((options.apiKey === undefined) === (options.credential === undefined)) {
    throw new InvalidInputError('invalid_argument', 'give AzureAiSearchMemoryDb either an apiKey or a credential', {
      connector: 'azureaisearch',
    });
  }
  return options.credential ?? new AzureKeyCredential(options.apiKey!);
}

/** The SDK client options of the connector's clients. */
export function clientOptions(options: AzureAiSearchMemoryDbOptions): SearchIndexClientOptions {
  return {
    ...(options.audience ? { audience: options.audience } : {}),
    ...(options.maxRetries !== undefined ? { retryOptions: { maxRetries: options.maxRetries } } : {}),
    ...(options.allowInsecureConnection ? { allowInsecureConnection: true } : {}),
  };
}
