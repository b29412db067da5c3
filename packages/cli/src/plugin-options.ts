import { configuredPlugins, loadPlugins, type Connectors } from '@km/service';

/** The commands that load plugins. */
const HOSTS = ['serve', 'worker'];

/**
 * The connectors of `km serve` and `km worker`: the built-in ones plus the plugins named by the
 * configuration file's `plugins` (`--config` or KM_CONFIG), KM_PLUGINS and every `--plugin`,
 * read from the arguments before commander parses them, because the plugins' factories add
 * types and flags (`--demo-url`) to these commands and their `--help`. Undefined for other commands.
 */
export async function connectorsOfArgv(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): Promise<Connectors | undefined> {
  const args = argv.slice(2);
  if (!HOSTS.includes(args.find((arg) => !arg.startsWith('-')) ?? '')) return undefined;
  const plugins: string[] = [];
  let file: string | undefined;
  args.forEach((arg, i) => {
    const [name, inline] =
      arg.startsWith('--') && arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg];
    const value = inline ?? args[i + 1];
    if (value === undefined) return;
    if (name === '--plugin') plugins.push(value);
    if (name === '--config') file = value;
  });
  const names = configuredPlugins({ env, ...(file ? { file } : {}), overrides: { plugins } });
  return names.length ? loadPlugins(names) : undefined;
}
