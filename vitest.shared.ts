/**
 * Settings every vitest project of the repository shares (`packages/*` and `tests-integration`
 * import it into their `vitest.config.ts`).
 *
 * km's packages as built (`packages/<name>/dist`, which a test reaches through `@km/<name>`) load
 * as plain Node modules, not through Vite's transform: they are JavaScript already, and Vite
 * would otherwise transform and evaluate the whole of `@km/core` again for each project in each
 * worker. A package's own sources (`../src`) still go through Vite, so `vi.mock` works on them.
 *
 * (The project configs are not in the packages' `tsc` programs: a package's `rootDir` is its own folder.)
 */
export const sharedServerOptions = { deps: { external: [/\/packages\/[^/]+\/dist\//] } };
