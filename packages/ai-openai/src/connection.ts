import { InvalidInputError } from '@km/core';
import OpenAI, { AzureOpenAI } from 'openai';
import { CONNECTOR } from './errors.js';

/** OpenAI's own API. */
export interface OpenAIApiConnection {
  provider?: 'openai';
  apiKey: string;
  organization?: string;
  project?: string;
  /** A proxy or gateway in front of api.openai.com. */
  baseURL?: string;
}

/** An Azure OpenAI resource: a deployment, keyed by an API key or a Microsoft Entra token provider. */
export interface AzureOpenAIConnection {
  provider: 'azure';
  /** e.g. `https://my-resource.openai.azure.com/` */
  endpoint: string;
  /** Deployment name; it takes the place of the model name in requests. */
  deployment: string;
  /** @default '2024-10-21' */
  apiVersion?: string;
  apiKey?: string;
  /** Returns a bearer token, e.g. from `@azure/identity`'s `getBearerTokenProvider`. */
  azureADTokenProvider?: () => Promise<string>;
}

/** Any server speaking the OpenAI wire format: Ollama, LM Studio, vLLM, llama.cpp server. */
export interface CompatibleConnection {
  provider: 'compatible';
  /** e.g. `http://127.0.0.1:11434/v1` for Ollama. */
  baseURL: string;
  /** Most local servers need none. */
  apiKey?: string;
}

/** Where requests go, plus options common to all providers. */
export type OpenAIConnectionOptions = (OpenAIApiConnection | AzureOpenAIConnection | CompatibleConnection) & {
  /** Time limit of one HTTP request. @default 120000 */
  timeoutMs?: number;
  defaultHeaders?: Record<string, string>;
};

/** Default Azure OpenAI API version (GA). */
export const DEFAULT_AZURE_API_VERSION = '2024-10-21';

/**
 * Builds the SDK client. The SDK's own retries are off (`maxRetries: 0`): km retries with its
 * own policy so that every failure is classified and logged once.
 */
export function createOpenAIClient(connection: OpenAIConnectionOptions): OpenAI {
  const common = { maxRetries: 0, timeout: connection.timeoutMs ?? 120_000, defaultHeaders: connection.defaultHeaders };
  switch (connection.provider) {
    case 'azure': {
      if (!connection.endpoint || !connection.deployment) {
        throw new InvalidInputError('not_configured', 'Azure OpenAI needs an endpoint and a deployment name', { connector: CONNECTOR });
      }
      if (!connection.apiKey && !connection.azureADTokenProvider) {
        throw new InvalidInputError('not_configured', 'Azure OpenAI needs an apiKey or an azureADTokenProvider', { connector: CONNECTOR });
      }
      return new AzureOpenAI({
        ...common,
        endpoint: connection.endpoint,
        deployment: connection.deployment,
        apiVersion: connection.apiVersion ?? DEFAULT_AZURE_API_VERSION,
        ...(connection.apiKey ? { apiKey: connection.apiKey } : { azureADTokenProvider: connection.azureADTokenProvider }),
      });
    }
    case 'compatible':
      if (!connection.baseURL) {
        throw new InvalidInputError('not_configured', 'an OpenAI-compatible endpoint needs a baseURL', { connector: CONNECTOR });
      }
      // The SDK refuses an empty key; local servers ignore it.
      return new OpenAI({ ...common, baseURL: connection.baseURL, apiKey: connection.apiKey || 'not-needed' });
    default:
      if (!connection.apiKey) {
        throw new InvalidInputError('not_configured', 'OpenAI needs an apiKey (OPENAI_API_KEY)', { connector: CONNECTOR });
      }
      return new OpenAI({
        ...common,
        apiKey: connection.apiKey,
        organization: connection.organization ?? null,
        project: connection.project ?? null,
        ...(connection.baseURL ? { baseURL: connection.baseURL } : {}),
      });
  }
}

/** The model of a generator: the name sent in requests (the deployment on Azure) and the model's own name. */
export interface ModelIdentity {
  requestModel: string;
  /** The model's name, for its limits, tokenizer and `modelName`: the deployment when no model is given on Azure. */
  name: string;
}

export function modelIdentity(connection: OpenAIConnectionOptions, model: string | undefined): ModelIdentity {
  if (connection.provider === 'azure') return { requestModel: connection.deployment, name: model ?? connection.deployment };
  if (!model) throw new InvalidInputError('not_configured', 'a model name is required', { connector: CONNECTOR });
  return { requestModel: model, name: model };
}
