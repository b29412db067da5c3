// Types of check-release-versions.mjs, for the tests that import it.
export interface Release {
  name: string;
  type: string;
}
export interface ChangesetReleases {
  id?: string;
  releases: Release[];
}
export interface VersionChange {
  name: string;
  from: string;
  to: string;
}
export interface ChangesetVersionRun {
  before: Record<string, string>;
  after: Record<string, string>;
  changesets: ChangesetReleases[];
  manifests: Record<string, Record<string, unknown>>;
}
export function parseChangeset(text: string): Release[];
export function findUnintendedMajors(input: {
  before: Record<string, string>;
  after: Record<string, string>;
  changesets: ChangesetReleases[];
}): VersionChange[];
export function workspaceFolders(root: string): string[];
export function runChangesetVersion(root: string): ChangesetVersionRun;
export function checkReleaseVersions(root: string): ChangesetVersionRun & { unintended: VersionChange[] };
