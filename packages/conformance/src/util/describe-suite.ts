import { describe, it } from 'vitest';

/**
 * `describe(title, body)`, or, when `skip` gives a reason, a suite of one skipped test named by
 * it (`skipped: <reason>`), so a suite a connector cannot run shows as a named skip, never a pass.
 */
export function describeSuite(title: string, skip: string | false | undefined, body: () => void): void {
  describe(title, () => {
    if (skip) {
      it.skip(`skipped: ${skip}`, () => undefined);
      return;
    }
    body();
  });
}
