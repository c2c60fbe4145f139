import { existsSync, statSync } from "node:fs";
import { z } from "zod";
import { isKnownCountry } from "./http/phone.ts";
import { RUNTIME_DEFAULTS, SETTINGS } from "./config-fields.ts";
import { configDefaults } from "./config-defaults.macro.ts" with { type: "macro" };

type Settings = typeof SETTINGS;
type ConfigSchema = z.ZodObject<{ [K in keyof Settings]: ReturnType<Settings[K]> }>;
let held: WeakRef<ConfigSchema> | undefined;

const DEFAULTS = configDefaults() as { values: Record<string, unknown>; booleans: string[] };

/** The settings that are switches (`--trust-proxy` alone means true). */
export const BOOLEAN_SETTINGS: ReadonlySet<string> = new Set(DEFAULTS.booleans);

/**
 * Every setting of Parley, as one zod object (help, documentation checks). Built when asked for
 * and held weakly: loading the settings does not need it (loadConfig builds only the schemas of
 * the settings it was given), and a server does not keep ~300 zod schemas resident (issue 13).
 */
export function configSchema(): ConfigSchema {
  let schema = held?.deref();
  if (!schema) held = new WeakRef((schema = z.object(Object.fromEntries(Object.entries(SETTINGS).map(([k, make]) => [k, make()]))) as unknown as ConfigSchema));
  return schema;
}

type Parsed = z.infer<ConfigSchema>;

/**
 * What the whole schema's safeParse of `raw` gives, building only the schemas of the keys
 * `raw` has: every other setting takes its default (a literal made when the binary is built, or
 * made here for the few that depend on the process). The first issue, in the schema's order,
 * is the one reported, as the object's would be.
 */
export function parseSettings(raw: Record<string, unknown>): { success: true; data: Parsed } | { success: false; key: string; message: string } {
  const data: Record<string, unknown> = {};
  for (const [key, make] of Object.entries(SETTINGS)) {
    let value: unknown;
    if (Object.hasOwn(raw, key)) {
      const parsed = make().safeParse(raw[key]);
      if (!parsed.success) return { success: false, key, message: parsed.error.issues[0]!.message };
      value = parsed.data;
    } else if (Object.hasOwn(RUNTIME_DEFAULTS, key)) {
      value = RUNTIME_DEFAULTS[key]!();
    } else {
      value = DEFAULTS.values[key];
      if (Array.isArray(value)) value = [...value]; // each config its own list
    }
    if (value !== undefined) data[key] = value;
  }
  return { success: true, data: data as Parsed };
}

export type Config = Readonly<z.infer<ConfigSchema>>;
export type ConfigKey = keyof z.infer<ConfigSchema>;

/** `dataDir` -> `PARLEY_DATA_DIR` */
export function envName(key: string): string {
  return "PARLEY_" + key.replace(/([A-Z])/g, "_$1").toUpperCase();
}

/** `dataDir` -> `--data-dir` */
export function flagName(key: string): string {
  return "--" + key.replace(/([A-Z])/g, "-$1").toLowerCase();
}

export class ConfigError extends Error {}

export interface LoadOptions {
  /**
   * The settings the running command takes as flags: an error names `--flag` only for these
   * (an operator command has `--data-dir` and no `--port`). Default: every setting (serve).
   */
  flagKeys?: readonly string[];
}

/** Merges flags > environment (PARLEY_*) > defaults, validates once and freezes. */
export function loadConfig(
  flags: Partial<Record<ConfigKey, unknown>> = {},
  env: Record<string, string | undefined> = {},
  opts: LoadOptions = {},
): Config {
  const raw: Record<string, unknown> = {};
  const source: Record<string, string> = {};
  for (const key of Object.keys(SETTINGS) as ConfigKey[]) {
    const fromFlag = flags[key];
    const fromEnv = env[envName(key)];
    if (fromFlag !== undefined) {
      raw[key] = fromFlag;
      source[key] = flagName(key);
    } else if (fromEnv !== undefined) {
      raw[key] = fromEnv;
      source[key] = envName(key);
    }
  }
  const names = (key: string) =>
    opts.flagKeys === undefined || opts.flagKeys.includes(key) ? `${flagName(key)} / ${envName(key)}` : envName(key);
  const parsed = parseSettings(raw);
  if (!parsed.success) {
    const { key, message } = parsed;
    const from = source[key] ? `; given by ${source[key]}` : "";
    throw new ConfigError(`Invalid setting ${key} (${names(key)}): ${oneLine(message)}${from}`);
  }
  const problem = crossCheck(parsed.data);
  if (problem) throw new ConfigError(`Invalid settings: ${problem.replace(/\{(\w+)\}/g, (_, k: string) => `${k} (${names(k)})`)}`);
  return Object.freeze(parsed.data);
}

/** Settings that only make sense together; `{key}` is replaced by the key and where to set it. */
function crossCheck(c: z.infer<ConfigSchema>): string | null {
  if (c.mobileChannel === "session" && !c.mobileSession) return "{mobileSession} is required when mobileChannel is session (a session id, see `parley sessions list`)";
  if (c.mobileChannel === "http" && !c.mobileHttpUrl) return "{mobileHttpUrl} is required when mobileChannel is http";
  const oidc = [c.oidcIssuer, c.oidcAudience, c.oidcJwksUrl].filter(Boolean).length;
  if (oidc > 0 && oidc < 3) return "{oidcIssuer}, {oidcAudience} and {oidcJwksUrl} go together: set all three or none";
  if (!!c.razorpayKeyId !== !!c.razorpayKeySecret) return "{razorpayKeyId} and {razorpayKeySecret} go together: set both or neither";
  if (c.simUrl && c.network !== "sim") return "{simUrl} links the sim network: it needs network sim (--network sim)";
  if (c.webhookCaFile && !existsSync(c.webhookCaFile)) return `{webhookCaFile}: no file at ${c.webhookCaFile}`;
  if (c.defaultCountry && !isKnownCountry(c.defaultCountry)) return `{defaultCountry}: ${c.defaultCountry} is not a country with phone numbers (two letters such as IN, GB or US)`;
  if (existsSync(c.dataDir) && !statSync(c.dataDir).isDirectory()) return `{dataDir}: ${c.dataDir} is a file, not a directory`;
  return null;
}

const oneLine = (s: string) => s.replace(/\s*\n\s*/g, " ");
