/** A case that asked to be skipped (thrown by the `skip` callback {@link caseOutcome} passes in). */
class CaseSkipped extends Error {}

/**
 * Runs one conformance case once and says how it ended: `'passed'`, `'skipped: <reason>'` or
 * `'failed: <message>'`. The broken-store tests assert on this string, so a case that should
 * fail on a broken implementation is seen to fail (and with which message), not just to throw.
 *
 * ```ts
 * await caseOutcome((skip) => runQueueCase(options, run, { skip })); // 'failed: an acknowledged message came back…'
 * ```
 */
export async function caseOutcome(run: (skip: (reason: string) => never) => Promise<unknown>): Promise<string> {
  try {
    await run((reason) => {
      throw new CaseSkipped(reason);
    });
    return 'passed';
  } catch (e) {
    if (e instanceof CaseSkipped) return `skipped: ${e.message}`;
    return `failed: ${e instanceof Error ? e.message : String(e)}`;
  }
}
