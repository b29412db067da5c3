import { describeEmbeddingGenerator, describeTextGenerator } from '@km/conformance';
import { OllamaEmbeddingGenerator, OllamaTextGenerator } from '../src/index.js';
import { useFakeOllamaServer } from './fake-ollama-server.js';

// The ollama client against a local server speaking Ollama's native API.
const { url } = useFakeOllamaServer();
describeEmbeddingGenerator('ollama over the native API (local server)', {
  create: () => new OllamaEmbeddingGenerator({ host: url(), model: 'nomic-embed-text' }),
});
describeTextGenerator('ollama over the native API (local server)', {
  create: () => new OllamaTextGenerator({ host: url(), model: 'llama3.2' }),
});

// A real Ollama, when one is given.
const live = process.env.KM_TEST_OLLAMA_URL;
const skip = live ? false : 'KM_TEST_OLLAMA_URL is not set (an Ollama server with the models pulled)';
if (skip) console.log(`[km] skipped live Ollama conformance: ${skip}`);
describeEmbeddingGenerator('ollama live', {
  skip,
  create: () => new OllamaEmbeddingGenerator({ host: live, model: process.env.KM_TEST_OLLAMA_EMBEDDING_MODEL ?? 'nomic-embed-text' }),
});
describeTextGenerator('ollama live', {
  skip,
  create: () => new OllamaTextGenerator({ host: live, model: process.env.KM_TEST_OLLAMA_TEXT_MODEL ?? 'llama3.2' }),
});
