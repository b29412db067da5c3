import { describeEmbeddingGenerator, describeTextGenerator } from '@km/conformance';
import { OpenAIEmbeddingGenerator, OpenAITextGenerator } from '../src/index.js';
import { useFakeOpenAIServer } from './fake-openai-server.js';

// The SDK against a local server speaking OpenAI's wire format (these machines cannot reach the API).
const { url } = useFakeOpenAIServer();

describeEmbeddingGenerator('openai over the wire format (local server)', {
  create: () =>
    new OpenAIEmbeddingGenerator({ connection: { apiKey: 'sk-test', baseURL: url() }, model: 'text-embedding-3-small', dimensions: 128 }),
  dimensions: 128,
});
describeTextGenerator('openai over the wire format (local server)', {
  create: () => new OpenAITextGenerator({ connection: { apiKey: 'sk-test', baseURL: url() }, model: 'gpt-4o-mini' }),
});

// The real API, when a key is given.
const key = process.env.OPENAI_API_KEY;
const live = key ? false : 'OPENAI_API_KEY is not set (needed to call the real OpenAI API)';
if (live) console.log(`[km] skipped live OpenAI conformance: ${live}`);
describeEmbeddingGenerator('openai live', {
  skip: live,
  create: () =>
    new OpenAIEmbeddingGenerator({ connection: { apiKey: key! }, model: process.env.OPENAI_EMBEDDING_MODEL ?? 'text-embedding-3-small' }),
});
describeTextGenerator('openai live', {
  skip: live,
  create: () => new OpenAITextGenerator({ connection: { apiKey: key! }, model: process.env.OPENAI_CHAT_MODEL ?? 'gpt-4o-mini' }),
});
