import { z } from "zod";
import { isKnownCountry } from "./http/phone.ts";
import { SETTINGS } from "./config-fields.ts";
import { loadSettings, settle, type LoadOptions, type SchemaOf } from "./config-load.ts";

export { BOOLEAN_SETTINGS, ConfigError, envName, flagName, type LoadOptions } from "./config-load.ts";

type Settings = typeof SETTINGS;
type ConfigSchema = z.ZodObject<{ [K in keyof Settings]: ReturnType<Settings[K]> }>;
let held: WeakRef<ConfigSchema> | undefined;

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

/** Each setting's schema, built when a given value needs it. */
const schemaOf = ((key: string) => SETTINGS[key as keyof Settings]()) as SchemaOf;

/**
 * What the whole schema's safeParse of `raw` gives, building only the schemas of the keys
 * `raw` has that config-quick.ts does not accept as they are (config-load.ts).
 */
export function parseSettings(raw: Record<string, unknown>): { success: true; data: Parsed } | { success: false; key: string; message: string } {
  return settle(raw, schemaOf) as ReturnType<typeof parseSettings>;
}

export type Config = Readonly<z.infer<ConfigSchema>>;
export type ConfigKey = keyof z.infer<ConfigSchema>;

/** Merges flags > environment (PARLEY_*) > defaults, validates once and freezes. */
export function loadConfig(
  flags: Partial<Record<ConfigKey, unknown>> = {},
  env: Record<string, string | undefined> = {},
  opts: LoadOptions = {},
): Config {
  return loadSettings(flags, env, opts, schemaOf, { isKnownCountry }) as Config;
}
