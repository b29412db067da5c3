// @km/queue-azure/factory: how hosts build this connector from configuration; loads no SDK until used.
export { azureQueueFactory } from './azure-queue-factory.js';
