import { describeTextGenerator } from '@km/conformance';
import { AnthropicTextGenerator } from '../src/index.js';
import { useFakeAnthropicServer } from './fake-anthropic-server.js';

// The SDK against a local server speaking Anthropic's wire format (these machines cannot reach the API).
const { server, url } = useFakeAnthropicServer();

describeTextGenerator('anthropic over the wire format (local server)', {
  create: () => new AnthropicTextGenerator({ apiKey: server.apiKey, baseURL: url(), model: 'claude-haiku-4-5' }),
});

// The real API, when a key is given.
const key = process.env.ANTHROPIC_API_KEY;
const live = key ? false : 'ANTHROPIC_API_KEY is not set (needed to call the real Anthropic API)';
if (live) console.log(`[km] skipped live Anthropic conformance: ${live}`);
describeTextGenerator('anthropic live', {
  skip: live,
  create: () => new AnthropicTextGenerator({ apiKey: key!, model: process.env.ANTHROPIC_MODEL ?? 'claude-haiku-4-5' }),
});
