import { readFileSync } from "node:fs";

// What a start needs of the settings without zod: the defaults made in the process, and checks
// of the few settings operator commands are given (the data dir, the database), which accept a
// value exactly as its zod schema would (config-fields.ts) and leave anything else to it. A
// command such as `parley workspaces list -d <dir>` then loads no zod at all (docs/benchmarks.md,
// "Cold start, fourth pass"); a test holds each check to its schema.

/** The defaults made in the process, not when the binary is built (the node id holds the process id). */
export const RUNTIME_DEFAULTS: Readonly<Record<string, () => unknown>> & { nodeId: () => string } = {
  nodeId: () => `${hostName()}-${process.pid}`,
};

/**
 * The machine's name, as `os.hostname()` gives it. On Linux the kernel's own file says the same
 * (the name of the host's UTS namespace), without loading node:os: every command's settings
 * make the node id, and that module is a start's cost of its own (a call for the processor count
 * when it is loaded), where `parley workspaces list` uses nothing else of it.
 */
export function hostName(): string {
  try {
    const name = readFileSync("/proc/sys/kernel/hostname", "utf8").trim();
    if (name) return name;
  } catch {
    // not Linux (or no /proc)
  }
  return (require("node:os") as typeof import("node:os")).hostname();
}

/** A value a quick check leaves to the setting's schema (to refuse it, or to read it its own way). */
export const ASK_SCHEMA: unique symbol = Symbol("ask the schema");

type Quick = (v: unknown) => unknown;

/** z.string().min(1) */
const text: Quick = (v) => (typeof v === "string" && v.length > 0 ? v : ASK_SCHEMA);
/** z.enum(values) */
const oneOf = (...values: string[]): Quick => (v) => (typeof v === "string" && values.includes(v) ? v : ASK_SCHEMA);
/** z.coerce.number().int().min(min).max(max): plain digits or an integer */
const int = (min: number, max: number): Quick => (v) => {
  const n = typeof v === "number" ? v : typeof v === "string" && /^\d{1,15}$/.test(v) ? Number(v) : NaN;
  return Number.isSafeInteger(n) && n >= min && n <= max ? n : ASK_SCHEMA;
};

/**
 * The settings checked here when given: each returns the value its schema's parse gives, or
 * ASK_SCHEMA. Only values the schema surely takes as they are pass; the empty strings that
 * some schemas read as "unset", and every refusal (with its message), stay the schema's.
 */
export const QUICK: Readonly<Record<string, Quick>> = {
  host: text,
  port: int(0, 65535),
  dataDir: text,
  network: oneOf("baileys", "sim"),
  logLevel: oneOf("debug", "info", "warn", "error", "silent"),
  logFormat: oneOf("auto", "json", "pretty"),
  databaseUrl: (v) => (typeof v === "string" && /^postgres(ql)?:\/\/\S+$/.test(v) ? v : ASK_SCHEMA),
  databasePoolSize: int(1, 200),
  dbSynchronous: oneOf("normal", "full"),
};
