import type { TextGeneratorFactory } from '@km/core/connector';
import { DEFAULT_MODEL } from './model-catalog.js';

/**
 * How the service and `km worker` build an {@link AnthropicTextGenerator} from configuration
 * (`KM_TEXT_GENERATOR=anthropic`). The generator and the SDK load only when it is chosen.
 */
export const anthropicTextGeneratorFactory: TextGeneratorFactory = {
  type: 'anthropic',
  description: "Anthropic's Claude models, Messages API (@anthropic-ai/sdk)",
  settings: [
    {
      key: 'anthropicApiKey',
      env: ['KM_ANTHROPIC_API_KEY', 'ANTHROPIC_API_KEY'],
      required: true,
      description: 'Anthropic API key',
    },
    {
      key: 'anthropicModel',
      env: ['KM_ANTHROPIC_MODEL'],
      flag: '--anthropic-model',
      default: DEFAULT_MODEL,
      description: `Claude model id, e.g. claude-haiku-4-5 (default ${DEFAULT_MODEL})`,
    },
    {
      key: 'anthropicBaseUrl',
      env: ['KM_ANTHROPIC_BASE_URL'],
      type: 'url',
      description: 'API base URL (default https://api.anthropic.com)',
    },
    {
      key: 'anthropicMaxTokenTotal',
      env: ['KM_ANTHROPIC_MAX_TOKEN_TOTAL'],
      type: 'number',
      min: 1,
      description: "context window in tokens (default the model's, 200000 for unknown models)",
    },
  ],
  async create(settings, context) {
    const { AnthropicTextGenerator } = await import('./anthropic-text-generator.js');
    return new AnthropicTextGenerator({
      apiKey: String(settings.anthropicApiKey),
      model: String(settings.anthropicModel ?? DEFAULT_MODEL),
      ...(settings.anthropicBaseUrl !== undefined ? { baseURL: String(settings.anthropicBaseUrl) } : {}),
      ...(typeof settings.anthropicMaxTokenTotal === 'number' ? { maxTokenTotal: settings.anthropicMaxTokenTotal } : {}),
      logger: context.logger,
    });
  },
};
