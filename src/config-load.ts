import { existsSync, statSync } from "node:fs";
import { ASK_SCHEMA, QUICK, RUNTIME_DEFAULTS } from "./config-quick.ts";
import { configDefaults } from "./config-defaults.macro.ts" with { type: "macro" };
import { envName, flagName } from "./config-names.ts";

// How the settings are read (flags > environment > defaults, each setting checked, then the
// settings that go together), without zod: config.ts gives it the settings' schemas, and an
// operator command given only settings that config-quick.ts checks reads its whole
// configuration here without loading zod or the schemas at all.

/** The settings as read (config.ts gives them their type, Config: this file knows no schema). */
type Settings = Readonly<Record<string, any>>;

const DEFAULTS = configDefaults() as { values: Record<string, unknown>; booleans: string[]; keys: string[]; envs: string[] };

/** Every setting, in the schema's order. */
export const SETTING_KEYS: readonly string[] = DEFAULTS.keys;

/** The settings that are switches (`--trust-proxy` alone means true). */
export const BOOLEAN_SETTINGS: ReadonlySet<string> = new Set(DEFAULTS.booleans);

/** What a setting's schema answers for a value (zod's safeParse, narrowed). */
export type SchemaOf = (key: string) => { safeParse(v: unknown): { success: true; data: unknown } | { success: false; error: { issues: { message: string }[] } } };

/** Returned when a given value needs its setting's schema and none was given. */
export const NEEDS_SCHEMAS: unique symbol = Symbol("needs the settings' schemas");

export type Settled = { success: true; data: Record<string, unknown> } | { success: false; key: string; message: string };

/**
 * What the whole schema's safeParse of `raw` gives, checking only the keys `raw` has (each with
 * its quick check, else its schema): every other setting takes its default (a literal made when
 * the binary is built, or made here for the few that depend on the process). The first issue,
 * in the schema's order, is the one reported, as the object's would be.
 */
export function settle(raw: Record<string, unknown>, schemaOf: SchemaOf | null): Settled | typeof NEEDS_SCHEMAS {
  const data: Record<string, unknown> = {};
  for (const key of DEFAULTS.keys) {
    let value: unknown;
    if (Object.hasOwn(raw, key)) {
      value = Object.hasOwn(QUICK, key) ? QUICK[key]!(raw[key]) : ASK_SCHEMA;
      if (value === ASK_SCHEMA) {
        if (!schemaOf) return NEEDS_SCHEMAS;
        const parsed = schemaOf(key).safeParse(raw[key]);
        if (!parsed.success) return { success: false, key, message: parsed.error.issues[0]!.message };
        value = parsed.data;
      }
    } else if (Object.hasOwn(RUNTIME_DEFAULTS, key)) {
      value = RUNTIME_DEFAULTS[key]!();
    } else {
      value = DEFAULTS.values[key];
      if (Array.isArray(value)) value = [...value]; // each config its own list
    }
    if (value !== undefined) data[key] = value;
  }
  return { success: true, data };
}

export { envName, flagName } from "./config-names.ts";

export class ConfigError extends Error {}

export interface LoadOptions {
  /**
   * The settings the running command takes as flags: an error names `--flag` only for these
   * (an operator command has `--data-dir` and no `--port`). Default: every setting (serve).
   */
  flagKeys?: readonly string[];
}

/** What the cross checks need that lives beside zod: whether a country code is known (phone.ts). */
export interface Checks {
  isKnownCountry(code: string): boolean;
}

/**
 * Merges flags > environment (PARLEY_*) > defaults, validates once and freezes. Without
 * `schemaOf` (and `checks`), returns NEEDS_SCHEMAS when some given value needs its schema.
 */
export function loadSettings(
  flags: Readonly<Record<string, unknown>>,
  env: Record<string, string | undefined>,
  opts: LoadOptions,
  schemaOf: SchemaOf | null,
  checks: Checks | null,
): Settings | typeof NEEDS_SCHEMAS {
  const raw: Record<string, unknown> = {};
  const source: Record<string, string> = {};
  // the variables' names are spelled when the binary is built (the macro), not at every start
  for (let i = 0; i < DEFAULTS.keys.length; i++) {
    const key = DEFAULTS.keys[i]!;
    const fromFlag = flags[key];
    const fromEnv = env[DEFAULTS.envs[i]!];
    if (fromFlag !== undefined) {
      raw[key] = fromFlag;
      source[key] = flagName(key);
    } else if (fromEnv !== undefined) {
      raw[key] = fromEnv;
      source[key] = DEFAULTS.envs[i]!;
    }
  }
  const names = (key: string) =>
    opts.flagKeys === undefined || opts.flagKeys.includes(key) ? `${flagName(key)} / ${envName(key)}` : envName(key);
  const parsed = settle(raw, schemaOf);
  if (parsed === NEEDS_SCHEMAS) return parsed;
  if (!parsed.success) {
    const { key, message } = parsed;
    const from = source[key] ? `; given by ${source[key]}` : "";
    throw new ConfigError(`Invalid setting ${key} (${names(key)}): ${oneLine(message)}${from}`);
  }
  const config: Settings = parsed.data;
  // a country to check needs the phone module: only ever set through its schema
  if (config.defaultCountry && !checks) return NEEDS_SCHEMAS;
  const problem = crossCheck(config, checks);
  if (problem) throw new ConfigError(`Invalid settings: ${problem.replace(/\{(\w+)\}/g, (_, k: string) => `${k} (${names(k)})`)}`);
  return Object.freeze(config);
}

/** Settings that only make sense together; `{key}` is replaced by the key and where to set it. */
function crossCheck(c: Settings, checks: Checks | null): string | null {
  if (c.mobileChannel === "session" && !c.mobileSession) return "{mobileSession} is required when mobileChannel is session (a session id, see `parley sessions list`)";
  if (c.mobileChannel === "http" && !c.mobileHttpUrl) return "{mobileHttpUrl} is required when mobileChannel is http";
  const oidc = [c.oidcIssuer, c.oidcAudience, c.oidcJwksUrl].filter(Boolean).length;
  if (oidc > 0 && oidc < 3) return "{oidcIssuer}, {oidcAudience} and {oidcJwksUrl} go together: set all three or none";
  if (!!c.razorpayKeyId !== !!c.razorpayKeySecret) return "{razorpayKeyId} and {razorpayKeySecret} go together: set both or neither";
  if (c.simUrl && c.network !== "sim") return "{simUrl} links the sim network: it needs network sim (--network sim)";
  if (c.webhookCaFile && !existsSync(c.webhookCaFile)) return `{webhookCaFile}: no file at ${c.webhookCaFile}`;
  if (c.defaultCountry && !checks?.isKnownCountry(c.defaultCountry)) return `{defaultCountry}: ${c.defaultCountry} is not a country with phone numbers (two letters such as IN, GB or US)`;
  if (existsSync(c.dataDir) && !statSync(c.dataDir).isDirectory()) return `{dataDir}: ${c.dataDir} is a file, not a directory`;
  return null;
}

const oneLine = (s: string) => s.replace(/\s*\n\s*/g, " ");
