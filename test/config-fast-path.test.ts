import { describe, expect, test } from "bun:test";
import { BOOLEAN_SETTINGS, configSchema, loadConfig, parseSettings } from "../src/config.ts";
import { SETTINGS } from "../src/config-fields.ts";
import { configDefaults, innerType } from "../src/config-defaults.macro.ts";
import { envName, loadSettings, NEEDS_SCHEMAS } from "../src/config-load.ts";
import { ASK_SCHEMA, QUICK } from "../src/config-quick.ts";

// loadConfig builds only the schemas of the settings it is given and takes the others' values
// from a table made when the binary is built: it must give what the whole schema gives.
const whole = (raw: Record<string, unknown>) => {
  const r = configSchema().safeParse(raw);
  return r.success ? { success: true, data: r.data } : { success: false, key: String(r.error.issues[0]!.path[0]), message: r.error.issues[0]!.message };
};

describe("settings without building every schema", () => {
  test("nothing given: every default, exactly as the whole schema parses it", () => {
    const fast = parseSettings({});
    expect(fast).toEqual(whole({}) as never);
    // the same keys (a setting with no value is absent, not undefined)
    expect(Object.keys(fast.success ? fast.data : {}).sort()).toEqual(Object.keys((whole({}) as { data: object }).data).sort());
  });

  test("given values, empty strings, bad values: the same result and the same first issue", () => {
    const cases: Record<string, unknown>[] = [
      { port: "4000", host: "0.0.0.0", network: "sim", corsOrigins: "https://a.com, https://b.com" },
      { nodeId: "", waVersion: "", publicUrl: "", simUrl: "", defaultCountry: " in " },
      { trustProxy: true, webhookAllowHttp: "yes", webhookRetrySchedule: "1,2,3", waWatchdogMs: "0" },
      { port: "eighty" },
      { port: "eighty", network: "pigeon" },
      { jwtSecret: "short", metricsToken: "x" },
      { waWatchdogMs: "5" },
      { nodeId: "bad name!" },
      { webhookRetrySchedule: "" },
      { mobileSession: "not-a-uuid" },
    ];
    for (const raw of cases) expect({ raw, result: parseSettings(raw) }).toEqual({ raw, result: whole(raw) as never });
  });

  test("each config gets its own lists", () => {
    const a = loadConfig();
    const b = loadConfig();
    expect(a.webhookRetrySchedule).toEqual(b.webhookRetrySchedule);
    expect(a.webhookRetrySchedule).not.toBe(b.webhookRetrySchedule);
  });

  test("each setting is read from its PARLEY_ variable, named when the binary is built", () => {
    const { keys, envs } = configDefaults();
    expect(envs).toEqual(keys.map(envName));
    expect(envs[keys.indexOf("dataDir")]).toBe("PARLEY_DATA_DIR");
    const config = loadSettings({}, { PARLEY_DATA_DIR: "/srv/parley", PARLEY_DB_SYNCHRONOUS: "full" }, {}, null, null) as Record<string, unknown>;
    expect([config.dataDir, config.dbSynchronous]).toEqual(["/srv/parley", "full"]);
  });

  test("the node id's default is the machine's name, as node:os gives it, and the process id", async () => {
    const { hostname } = await import("node:os");
    const { RUNTIME_DEFAULTS } = await import("../src/config-quick.ts");
    expect(RUNTIME_DEFAULTS.nodeId()).toBe(`${hostname()}-${process.pid}`);
  });

  test("the switches are the boolean settings", () => {
    const booleans = Object.entries(SETTINGS).filter(([, make]) => innerType(make()) === "boolean").map(([k]) => k);
    expect([...BOOLEAN_SETTINGS].sort()).toEqual(booleans.sort());
    expect(booleans.length).toBeGreaterThan(0);
  });
});

describe("settings checked without zod", () => {
  // a value a quick check takes must be one its schema takes, parsed to the same value; anything
  // else is left to the schema (so its refusal and message stay the schema's)
  const samples: unknown[] = [
    "", " ", "0", "1", "9", "10", "200", "201", "3000", "65535", "65536", "-1", "+5", " 5", "5 ", "1e3", "0x10", "1.5", "007",
    "99999999999999999999", "abc", "./data", "/var/lib/parley", "127.0.0.1", "0.0.0.0",
    "postgres://u:p@h:5432/db", "postgresql://h/db", "postgres://", "postgres://a b", "mysql://h/db", " postgres://h/db",
    "baileys", "sim", "SIM", "debug", "info", "warn", "error", "silent", "auto", "json", "pretty", "normal", "full", "FULL",
    0, 1, 200, 201, 65535, 65536, -1, 1.5, Number.NaN, true, false, null, undefined, [], {},
  ];

  test("each quick check accepts only what its schema accepts, as the schema parses it", () => {
    expect(Object.keys(QUICK).length).toBeGreaterThan(0);
    for (const [key, quick] of Object.entries(QUICK)) {
      const schema = SETTINGS[key as keyof typeof SETTINGS]();
      let accepted = 0;
      for (const v of samples) {
        const q = quick(v);
        if (q === ASK_SCHEMA) continue;
        accepted++;
        const z = schema.safeParse(v);
        expect({ key, v, z: z.success ? z.data : "refused" }).toEqual({ key, v, z: q as never });
      }
      expect({ key, accepted: accepted > 0 }).toEqual({ key, accepted: true });
    }
  });

  test("a command given only quick settings reads every setting without the schemas, as loadConfig does", () => {
    const flags = { dataDir: "/tmp/parley-quick", port: "4000" };
    const env = { PARLEY_LOG_LEVEL: "warn", PARLEY_DATABASE_POOL_SIZE: "3" };
    const quick = loadSettings(flags, env, {}, null, null);
    expect(quick).not.toBe(NEEDS_SCHEMAS);
    const { nodeId: a, ...q } = quick as Record<string, unknown>;
    const { nodeId: b, ...full } = loadConfig(flags, env) as Record<string, unknown>;
    expect(q).toEqual(full);
    expect(a).toBe(b as never);
  });

  test("a value a quick check does not take, or a setting it does not know, needs the schemas", () => {
    expect(loadSettings({ port: "eighty" }, {}, {}, null, null)).toBe(NEEDS_SCHEMAS);
    expect(loadSettings({}, { PARLEY_JWT_SECRET: "x".repeat(40) }, {}, null, null)).toBe(NEEDS_SCHEMAS);
    expect(loadSettings({}, { PARLEY_DEFAULT_COUNTRY: "IN" }, {}, null, null)).toBe(NEEDS_SCHEMAS);
    expect(loadSettings({ dataDir: "" }, {}, {}, null, null)).toBe(NEEDS_SCHEMAS);
    // and then loadConfig says what is wrong, as before
    expect(() => loadConfig({ port: "eighty" })).toThrow(/Invalid setting port/);
  });
});
