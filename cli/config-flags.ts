import type { Command } from "commander";
import { z } from "zod";
import { SETTING_HELP } from "./config-help.ts";
import { configSchema, envName, flagName, type ConfigKey } from "../src/config.ts";

/** Short forms of the settings people type most. */
const SHORT: Partial<Record<ConfigKey, string>> = { port: "-p", dataDir: "-d" };

/** The innermost schema of a setting (defaults, optionals and preprocessing unwrapped). */
function inner(schema: z.ZodType): z.ZodType {
  let s: any = schema;
  for (let i = 0; i < 10; i++) {
    const def = s?._zod?.def;
    if (!def) break;
    if (def.type === "default" || def.type === "optional" || def.type === "nullable") s = def.innerType;
    else if (def.type === "pipe") s = def.out;
    else break;
  }
  return s;
}

/** What a setting looks like in help: its choices, or its kind, and its default. */
function describe(shape: ReturnType<typeof configSchema>["shape"], key: ConfigKey): { help: string; bool: boolean } {
  const schema = shape[key] as z.ZodType;
  const base = inner(schema) as any;
  const def = base?._zod?.def;
  const bool = def?.type === "boolean";
  const choices = def?.type === "enum" ? Object.values(def.entries as Record<string, string>).join(", ") : null;
  const parsed = shape[key].safeParse(undefined);
  const dflt = parsed.success && parsed.data !== undefined && !(Array.isArray(parsed.data) && !parsed.data.length) ? String(parsed.data) : null;
  const what = SETTING_HELP[key] ?? schema.description ?? (choices ? `one of ${choices}` : key);
  return { help: `${what} (env ${envName(key)}${dflt !== null ? `, default ${dflt}` : ""})`, bool };
}

/** Adds one flag per setting of the config schema to `cmd`: every setting is also a flag (boolean ones take an optional value). */
export function addConfigFlags(cmd: Command): Command {
  const shape = configSchema().shape;
  for (const key of SERVE_FLAG_KEYS as ConfigKey[]) {
    const { help, bool } = describe(shape, key);
    const long = flagName(key);
    const short = SHORT[key];
    cmd.option(`${short ? `${short}, ` : ""}${long} ${bool ? "[bool]" : "<value>"}`, help);
  }
  return cmd;
}

/** Every setting is a flag of `serve`. */
export const SERVE_FLAG_KEYS: readonly string[] = Object.keys(configSchema().shape);
