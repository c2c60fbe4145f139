import { ConfigError, loadConfig, type Config, type ConfigKey } from "../src/config.ts";
import { createLogger, type Logger } from "../src/log.ts";

/** Loads config from flags and the environment, or exits with the one-line reason. */
export function configOrExit(flags: Partial<Record<ConfigKey, unknown>>): Config {
  try {
    return loadConfig(flags, process.env);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`parley: ${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
}

/** The process logger: JSON lines, or a readable format on a terminal. */
export function processLogger(config: Config): Logger {
  const format = config.logFormat === "auto" ? (process.stderr.isTTY ? "pretty" : "json") : config.logFormat;
  return createLogger({ level: config.logLevel, format });
}

/** Common data-dir flag for operator commands. */
export const DATA_DIR_FLAG = ["-d, --data-dir <dir>", "data directory (env PARLEY_DATA_DIR, default ./data)"] as const;
