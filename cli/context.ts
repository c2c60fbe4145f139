import type { Config, ConfigKey } from "../src/config.ts";
import { ConfigError, loadSettings, NEEDS_SCHEMAS } from "../src/config-load.ts";
import { isTty, writeErr } from "../src/node/tty.ts";
import { setDefaultCountry } from "../src/default-country.ts";
import { createLogger, type Logger } from "../src/log.ts";

/**
 * Loads config from flags and the environment, or exits 2 with the one-line reason. `flagKeys`
 * are the settings this command takes as flags (default: only `--data-dir`, as operator commands),
 * so an error never names a flag the command does not have. The settings' schemas (and zod) are
 * imported only when a given value needs one: `parley workspaces list -d <dir>` loads neither.
 */
export async function configOrExit(flags: Partial<Record<ConfigKey, unknown>>, flagKeys: readonly string[] = ["dataDir"]): Promise<Config> {
  try {
    const given = pick(flags);
    const quick = loadSettings(given, process.env, { flagKeys }, null, null);
    const config = quick === NEEDS_SCHEMAS ? (await import("../src/config.ts")).loadConfig(given, process.env, { flagKeys }) : (quick as Config);
    setDefaultCountry(config.defaultCountry); // numbers an operator types follow the server's setting
    return config;
  } catch (err) {
    if (err instanceof ConfigError) {
      writeErr(`parley: ${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
}

/** Only the keys commander set (it leaves unset options undefined, and adds none of its own here). */
function pick(flags: Record<string, unknown>): Partial<Record<ConfigKey, unknown>> {
  return Object.fromEntries(Object.entries(flags).filter(([, v]) => v !== undefined));
}

/** Whether to colour terminal output: https://no-color.org (NO_COLOR set and not empty turns colour off). */
export function colorEnabled(env: Record<string, string | undefined> = process.env): boolean {
  return !env.NO_COLOR;
}

/** The process logger: JSON lines, or a readable format on a terminal (uncoloured under NO_COLOR). */
export function processLogger(config: Config): Logger {
  const format = config.logFormat === "auto" ? (isTty(2) ? "pretty" : "json") : config.logFormat;
  return createLogger({ level: config.logLevel, format, color: colorEnabled() });
}

/** Common data-dir flag for operator commands. */
export const DATA_DIR_FLAG = ["-d, --data-dir <dir>", "data directory (env PARLEY_DATA_DIR, default ./data)"] as const;
