/** Structured logs: one JSON line per record, or a readable line on a terminal. */
export type LogLevel = "debug" | "info" | "warn" | "error";
const LEVELS: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  child(fields: Record<string, unknown>): Logger;
  /** Whether a record of `level` would be written (callers skip building what nobody reads). */
  enabled(level: LogLevel): boolean;
}

export interface LoggerOptions {
  level: LogLevel | "silent";
  format: "json" | "pretty";
  /** ANSI colour of the level in `pretty` (default true; off under NO_COLOR) */
  color?: boolean;
  write?: (line: string) => void;
}

const COLORS: Record<LogLevel, string> = { debug: "\x1b[90m", info: "\x1b[36m", warn: "\x1b[33m", error: "\x1b[31m" };

/** Creates a logger; `format: "pretty"` is meant for a terminal. */
export function createLogger(opts: LoggerOptions, base: Record<string, unknown> = {}): Logger {
  const min = opts.level === "silent" ? Infinity : LEVELS[opts.level];
  const write = opts.write ?? ((line: string) => process.stderr.write(line + "\n"));
  const emit = (level: LogLevel, msg: string, fields?: Record<string, unknown>) => {
    if (LEVELS[level] < min) return;
    const rec = { time: new Date().toISOString(), level, msg, ...base, ...fields };
    if (opts.format === "json") {
      write(JSON.stringify(rec, errorReplacer));
      return;
    }
    const { time, level: _l, msg: _m, ...rest } = rec;
    const extra = Object.entries(rest)
      .map(([k, v]) => `${k}=${typeof v === "string" ? v : JSON.stringify(v, errorReplacer)}`)
      .join(" ");
    const label = level.toUpperCase().padEnd(5);
    write(`${time.slice(11, 23)} ${opts.color === false ? label : `${COLORS[level]}${label}\x1b[0m`} ${msg}${extra ? " " + extra : ""}`);
  };
  return {
    debug: (m, f) => emit("debug", m, f),
    info: (m, f) => emit("info", m, f),
    warn: (m, f) => emit("warn", m, f),
    error: (m, f) => emit("error", m, f),
    child: (fields) => createLogger(opts, { ...base, ...fields }),
    enabled: (level) => LEVELS[level] >= min,
  };
}

function errorReplacer(_key: string, value: unknown) {
  if (value instanceof Error) return { name: value.name, message: value.message, stack: value.stack };
  return value;
}

/** A logger that drops everything (tests). */
export const silentLogger: Logger = createLogger({ level: "silent", format: "json" });
