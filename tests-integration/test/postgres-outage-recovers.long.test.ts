import { setTimeout as sleep } from 'node:timers/promises';
import { eventually } from '@km/conformance';
import { afterAll, describe, expect, it } from 'vitest';
import { DOCUMENTS, OutageScenario } from './helpers/outage-scenario.js';

// PostgreSQL (records and content storage, pipeline state included) down for 60 s while 50
// documents are in flight, under `km serve --no-handlers` and a `km worker` with the default
// retry budget (10 minutes): nothing fails, every document completes once the database is back,
// with one record set each, and neither process dies.
describe(`a 60 s PostgreSQL outage within the retry budget (${OutageScenario.databaseName()})`, () => {
  const scenario = new OutageScenario();
  afterAll(() => scenario.stop());

  it('every document in flight completes once the database is back, one record set each', {
    timeout: OutageScenario.timeout(300_000),
  }, async () => {
    await scenario.start({});
    for (const [id, text] of DOCUMENTS) expect(await scenario.upload(id!, text!)).toBe(202);
    await scenario.stopDatabase();
    const down = Date.now();
    // The worker keeps trying while the database is down.
    await eventually(() => expect(scenario.workerLog).toMatch(/will retry/), 60_000, 200);
    await sleep(Math.max(0, 60_000 - (Date.now() - down)));
    expect(scenario.alive()).toBe(true);
    await scenario.startDatabase();

    await scenario.expectAllCompletedOnce(180_000);
    expect(scenario.alive()).toBe(true);
  });
});
