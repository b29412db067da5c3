// @km/service/testing: support for tests of applications and tools that talk to a km service; not part of the service's API.
export { startTestService, type TestService } from './testing/start-test-service.js';
