export { AzureQueue } from './azure-queue.js';
export type { AzureQueueOptions, TokenCredentialLike } from './azure-queue-config.js';
export { AzureQueueTransport, type AzureMessage } from './azure-queue-transport.js';
export { azureQueueName, azurePoisonQueueName } from './queue-names.js';
export { encodeMessage, decodeMessage, MAX_AZURE_MESSAGE_BYTES } from './message-encoding.js';
export { translateAzureError } from './azure-errors.js';
export { azureQueueFactory } from './azure-queue-factory.js';
