import { describe, expect, test } from "bun:test";
import { statSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigError, envName, flagName, loadConfig } from "../src/config.ts";
import { openStore } from "../src/db/open.ts";
import { loadSecrets } from "../src/secrets.ts";

describe("config", () => {
  test("defaults: 127.0.0.1:3000, ./data, baileys", () => {
    const c = loadConfig();
    expect(c).toMatchObject({ host: "127.0.0.1", port: 3000, dataDir: "./data", network: "baileys", dbSynchronous: "normal" });
  });

  test("flags beat the environment, which beats defaults", () => {
    const env = { PARLEY_PORT: "4000", PARLEY_HOST: "0.0.0.0" };
    expect(loadConfig({}, env)).toMatchObject({ port: 4000, host: "0.0.0.0" });
    expect(loadConfig({ port: "5000" }, env)).toMatchObject({ port: 5000, host: "0.0.0.0" });
  });

  test("names map to flags and env vars", () => {
    expect(envName("dataDir")).toBe("PARLEY_DATA_DIR");
    expect(flagName("dataDir")).toBe("--data-dir");
  });

  test("a bad value stops with one line naming the setting", () => {
    try {
      loadConfig({}, { PARLEY_PORT: "eighty" });
      throw new Error("should have failed");
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      const msg = (err as Error).message;
      expect(msg).toContain("port");
      expect(msg).toContain("PARLEY_PORT");
      expect(msg).not.toContain("\n");
    }
    expect(() => loadConfig({ network: "carrier-pigeon" })).toThrow(/network/);
    expect(() => loadConfig({}, { PARLEY_WEBHOOK_ALLOW_HTTP: "maybe" })).toThrow(/webhookAllowHttp/);
    expect(() => loadConfig({}, { PARLEY_JWT_SECRET: "short" })).toThrow(/jwtSecret.*32/);
  });

  test("booleans and lists from the environment", () => {
    const c = loadConfig({}, { PARLEY_WEBHOOK_ALLOW_HTTP: "true", PARLEY_CORS_ORIGINS: "https://a.com, https://b.com" });
    expect(c.webhookAllowHttp).toBe(true);
    expect(c.corsOrigins).toEqual(["https://a.com", "https://b.com"]);
  });

  test("simUrl: an http(s) URL of a sim network process, only with network sim", () => {
    expect(loadConfig({ network: "sim", simUrl: "http://127.0.0.1:4500" }).simUrl).toBe("http://127.0.0.1:4500");
    expect(loadConfig({}, { PARLEY_NETWORK: "sim", PARLEY_SIM_URL: "" }).simUrl).toBeUndefined();
    expect(() => loadConfig({ network: "sim", simUrl: "ws://127.0.0.1:4500" })).toThrow(/simUrl .*must be an http/);
    expect(() => loadConfig({ simUrl: "http://127.0.0.1:4500" })).toThrow(/simUrl \(--sim-url \/ PARLEY_SIM_URL\) links the sim network: it needs network sim/);
  });

  test("the config is frozen", () => {
    const c = loadConfig();
    expect(Object.isFrozen(c)).toBe(true);
  });
});

describe("secrets", () => {
  // SQLite: the secrets live in the data dir's file (the store is only asked its engine)
  const sqliteStore = (c: ReturnType<typeof loadConfig>) => openStore(c, { path: ":memory:" });

  test("generated on first start into the data dir with mode 0600, stable afterwards", async () => {
    const dir = mkdtempSync(join(tmpdir(), "parley-secrets-"));
    const c = loadConfig({ dataDir: dir });
    const db = sqliteStore(c);
    const a = await loadSecrets(c, db);
    const path = join(dir, "secrets.json");
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(a.jwtSecret.length).toBeGreaterThanOrEqual(64);
    expect(a.credentialKey).toMatch(/^[0-9a-f]{64}$/);
    expect(await loadSecrets(c, db)).toEqual(a);
    expect(JSON.parse(readFileSync(path, "utf8")).jwtSecret).toBe(a.jwtSecret);
    await db.close();
  });

  test("a configured JWT secret wins", async () => {
    const dir = mkdtempSync(join(tmpdir(), "parley-secrets-"));
    const c = loadConfig({ dataDir: dir, jwtSecret: "k".repeat(40) });
    const db = sqliteStore(c);
    const s = await loadSecrets(c, db);
    expect(s.jwtSecret).toBe("k".repeat(40));
    await db.close();
  });
});

test("the configuration page (docs/configuration.md) lists every setting", async () => {
  const { configSchema } = await import("../src/config.ts");
  const readme = await Bun.file(join(import.meta.dir, "../docs/configuration.md")).text();
  const missing = Object.keys(configSchema().shape).filter((k) => !readme.includes("`" + envName(k) + "`"));
  expect(missing).toEqual([]);
});
