import type { SocketConfig } from "baileys";
import type { Logger } from "../../log.ts";

type ILogger = SocketConfig["logger"];

function split(obj: unknown, msg?: string): [string, Record<string, unknown>] {
  if (typeof obj === "string") return [obj, {}];
  const fields = obj && typeof obj === "object" ? (obj as Record<string, unknown>) : { value: obj };
  return [msg ?? "baileys", fields];
}

/** Parley's level as baileys (pino) names it: baileys checks `level` before building costly trace lines. */
const PINO_LEVEL: Record<string, string> = { debug: "debug", info: "info", warn: "warn", error: "error", silent: "silent" };

/**
 * baileys logs through a pino-like interface. It follows Parley's level: its warnings and
 * errors (463 restrictions, bad acks, decrypt failures) are Parley warnings and errors; its
 * info is chatty (every frame class) and goes to debug, like its debug; trace is dropped.
 */
export function baileysLogger(log: Logger, level = "info"): ILogger {
  return {
    level: PINO_LEVEL[level] ?? "info",
    child: (fields) => baileysLogger(log.child(fields), level),
    trace: () => {},
    debug: (o, m) => log.debug(...split(o, m)),
    info: (o, m) => log.debug(...split(o, m)),
    warn: (o, m) => log.warn(...split(o, m)),
    error: (o, m) => log.error(...split(o, m)),
  };
}
