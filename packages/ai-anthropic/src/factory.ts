// @km/ai-anthropic/factory: how hosts build this connector from configuration; loads no SDK until used.
export { anthropicTextGeneratorFactory } from './anthropic-factory.js';
