import { InvalidInputError } from '../errors/km-error.js';
import type { ConnectorFactory, ConnectorSetting, ConnectorSettings } from './connector-factory.js';

/** Where {@link readSettings} looks, and how its messages name things. */
export interface SettingsSource {
  /** The environment. */
  env: Readonly<Record<string, string | undefined>>;
  /** The factory's section of a configuration file (and of command-line overrides): key → value. */
  section?: Readonly<Record<string, unknown>> | undefined;
  /** The section's name in messages, e.g. `memoryDb`. */
  sectionName: string;
  /** The section's key that names the connector, for messages. @default 'type' */
  typeKey?: string;
}

/**
 * The environment's values of every setting the factories declare, as a configuration section
 * (key → raw value); the host merges it under the file's section and command-line overrides.
 */
export function settingsFromEnv(
  factories: readonly ConnectorFactory<unknown, never>[],
  env: Readonly<Record<string, string | undefined>>,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const setting of factories.flatMap((f) => f.settings)) {
    const value = setting.env.map((name) => env[name]).find((v) => v !== undefined && v !== '');
    if (value !== undefined) out[setting.key] = value;
  }
  return out;
}

/**
 * Reads and checks the settings a factory declares from a configuration section: numbers
 * parsed, URLs of the allowed schemes, required ones present, paired ones together, defaults
 * applied. Throws `invalid_argument` naming the setting and its environment variable.
 */
export function readSettings(factory: ConnectorFactory<unknown, never>, source: SettingsSource): ConnectorSettings {
  const out: Record<string, string | number | undefined> = {};
  const given = (s: ConnectorSetting) => source.section?.[s.key] !== undefined && source.section?.[s.key] !== '';
  const name = (s: ConnectorSetting) => `${source.sectionName}.${s.key}${s.env.length ? ` (${s.env.join(' or ')})` : ''}`;
  const fail = (message: string): never => {
    throw new InvalidInputError('invalid_argument', `configuration: ${message}`);
  };
  for (const setting of factory.settings) {
    for (const partner of setting.with ?? []) {
      const other = factory.settings.find((s) => s.key === partner);
      if (other && given(setting) !== given(other)) {
        fail(
          `${source.sectionName}.${setting.key} and ${source.sectionName}.${other.key} go together (${[...setting.env, ...other.env].join(', ')})`,
        );
      }
    }
    const raw = given(setting) ? source.section![setting.key] : setting.default;
    if (raw === undefined) {
      if (setting.required) fail(`${source.sectionName}.${source.typeKey ?? 'type'} is ${factory.type} but ${name(setting)} is not set`);
      continue;
    }
    out[setting.key] = checkValue(
      setting,
      raw,
      name(setting),
      `${source.sectionName}.${source.typeKey ?? 'type'} is ${factory.type} but `,
      fail,
    );
  }
  return out;
}

/** The value of one setting; `what` names it in messages (`memoryDb.qdrantUrl (KM_QDRANT_URL)`), `because` says why a URL is needed. */
function checkValue(
  setting: ConnectorSetting,
  raw: unknown,
  what: string,
  because: string,
  fail: (message: string) => never,
): string | number {
  switch (setting.type ?? 'string') {
    case 'number': {
      const n = typeof raw === 'number' ? raw : Number(raw);
      if (!Number.isFinite(n) || (setting.min !== undefined && n < setting.min) || !Number.isInteger(n)) {
        fail(`${what} must be an integer${setting.min !== undefined ? ` >= ${setting.min}` : ''}, got ${JSON.stringify(raw)}`);
      }
      return n;
    }
    case 'url': {
      const schemes = setting.schemes ?? ['http:', 'https:'];
      let protocol: string | undefined;
      try {
        protocol = new URL(String(raw)).protocol;
      } catch {
        protocol = undefined;
      }
      if (typeof raw !== 'string' || !protocol || !schemes.includes(protocol)) {
        const kinds = schemes.map((scheme) => `${scheme}//`).join(' or ');
        fail(`${because}${what} is not ${/^[aehiou]/.test(kinds) ? 'an' : 'a'} ${kinds} URL`);
      }
      return raw as string;
    }
    default:
      if (typeof raw !== 'string') fail(`${what} must be a string`);
      return raw as string;
  }
}
