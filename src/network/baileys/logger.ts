import type { SocketConfig } from "baileys";
import type { Logger } from "../../log.ts";

type ILogger = SocketConfig["logger"];

function split(obj: unknown, msg?: string): [string, Record<string, unknown>] {
  if (typeof obj === "string") return [obj, {}];
  const fields = obj && typeof obj === "object" ? (obj as Record<string, unknown>) : { value: obj };
  return [msg ?? "baileys", fields];
}

/**
 * baileys logs through a pino-like interface and is chatty: its info and warnings are our
 * debug lines, its errors our warnings (the driver reports what matters itself).
 */
export function baileysLogger(log: Logger, level = "debug"): ILogger {
  return {
    level,
    child: (fields) => baileysLogger(log.child(fields), level),
    trace: () => {},
    debug: (o, m) => log.debug(...split(o, m)),
    info: (o, m) => log.debug(...split(o, m)),
    warn: (o, m) => log.debug(...split(o, m)),
    error: (o, m) => log.warn(...split(o, m)),
  };
}
