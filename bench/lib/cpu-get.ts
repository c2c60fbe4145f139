// In-process CPU per request of the hot GETs (app.handle, no sockets): `bun bench/lib/cpu-get.ts [n]`.
import { loadConfig } from "../../src/config.ts";
import { silentLogger } from "../../src/log.ts";
import { SimDriver } from "../../src/network/sim/driver.ts";
import { createRuntime } from "../../src/runtime.ts";
import { seed } from "./seed.ts";
import { benchDir } from "./tmp.ts";

const n = Number(process.argv[2] ?? 200_000);
const config = loadConfig({ dataDir: benchDir("parley-cpu-"), network: "sim", logLevel: "silent", port: 0, rateLimitPerMinute: 1_000_000 });
const sim = new SimDriver();
const rt = await createRuntime(config, silentLogger, { network: sim });
const s = await seed(rt, sim, 1);
const cases: [string, string, Record<string, string>][] = [
  ["health", "/health", {}],
  ["jwt profile", "/api/auth/profile", { authorization: `Bearer ${s.token}` }],
  ["apikey sessions", "/api/external/sessions", { "x-api-key": s.apiKey }],
];
for (const [name, path, headers] of cases) {
  const url = `http://127.0.0.1${path}`;
  // the first request verifies the token (WebCrypto answers on a later turn of the event loop)
  await (await rt.app.handle(new Request(url, { headers }))).text();
  await Bun.sleep(50);
  for (let i = 0; i < 20_000; i++) await (await rt.app.handle(new Request(url, { headers }))).text();
  const probe = await rt.app.handle(new Request(url, { headers }));
  if (probe.status !== 200) throw new Error(`${name}: ${probe.status} ${await probe.text()}`);
  const t0 = process.cpuUsage();
  for (let i = 0; i < n; i++) await (await rt.app.handle(new Request(url, { headers }))).text();
  const d = process.cpuUsage(t0);
  console.log(`${name}: ${((d.user + d.system) / n).toFixed(2)} us/request`);
}
await rt.close();
process.exit(0);
