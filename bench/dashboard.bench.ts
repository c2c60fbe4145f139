// The dashboard: size of the embedded assets (raw and gzip), and the time to first render of the
// inbox of a workspace with 1,000 conversations in headless Chromium (reload to the first 50 rows,
// including the token refresh and the API calls), against a bare static page listing the same
// 50 rows, served by a bare Bun.serve and measured in the same run.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { assetSizes, buildWeb } from "../web/build.ts";
import { spawnServer } from "../test/helpers/process.ts";
import { connectedSession, ownerByApi, uiLogin, call } from "../test/web/setup.ts";
import { benchDir } from "./lib/tmp.ts";

const CONVERSATIONS = 1000;
const RUNS = 7;

const assets = await buildWeb();
const sizes = assetSizes(assets);
const gzip = Object.values(sizes).reduce((s, v) => s + v.gzip, 0);
const raw = Object.values(sizes).reduce((s, v) => s + v.bytes, 0);
console.log(`embedded assets: ${(raw / 1024).toFixed(1)} KiB raw, ${(gzip / 1024).toFixed(1)} KiB gzip (js ${(sizes.js!.gzip / 1024).toFixed(1)}, css ${(sizes.css!.gzip / 1024).toFixed(1)}, html ${(sizes.html!.gzip / 1024).toFixed(1)})`);

if (!existsSync("/usr/bin/chromium")) {
  console.log("inbox render: SKIPPED, no /usr/bin/chromium");
  process.exit(0);
}

const dataDir = benchDir("parley-bench-web-");
const server = await spawnServer({ dataDir, env: { PARLEY_CAPTCHA: "off", PARLEY_LOG_LEVEL: "warn", PARLEY_AUTH_RATE_LIMIT_PER_MINUTE: "100000", PARLEY_RATE_LIMIT_PER_MINUTE: "100000" } });
const base = server.url;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
try {
  const token = await ownerByApi(base, dataDir, "bench@example.com", "919811100123");
  const sid = await connectedSession(base, token, "Bench", "919822200123");
  for (let i = 0; i < CONVERSATIONS; i += 25) {
    await Promise.all(
      Array.from({ length: 25 }, (_, j) => call(base, "POST", `/api/sim/sessions/${sid}/inbound`, { from: `9197${String(i + j).padStart(8, "0")}`, text: `Message ${i + j}` }, token)),
    );
  }
  let total = 0;
  for (let i = 0; i < 100 && total < CONVERSATIONS; i++) {
    total = (await call(base, "GET", "/api/v1/inbox/conversations?limit=1", undefined, token)).body.pagination.total;
    if (total < CONVERSATIONS) await Bun.sleep(100);
  }
  console.log(`conversations in the workspace: ${total}`);

  // the baseline: the same 50 rows as a static page from a bare server
  const rows = Array.from({ length: 50 }, (_, i) => `<li><a href="#">+9197${String(i).padStart(8, "0")}</a><span>Message ${i}</span></li>`).join("");
  const bare = Bun.serve({ port: 0, fetch: () => new Response(`<!doctype html><html><head><title>bare</title></head><body><h1>Inbox</h1><ul>${rows}</ul></body></html>`, { headers: { "content-type": "text/html" } }) });

  const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", headless: true, args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"] });
  const page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
  const staticTimes: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    await page.goto(`http://127.0.0.1:${bare.port}/`);
    await page.waitForFunction(() => document.querySelectorAll("li").length >= 50);
    staticTimes.push(await page.evaluate(() => performance.now()));
  }
  await uiLogin(page, base, "bench@example.com");
  const inboxTimes: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    await page.goto(`${base}/app/inbox`);
    await page.waitForFunction(() => document.querySelectorAll(".conv").length >= 50, null, { timeout: 30_000 });
    inboxTimes.push(await page.evaluate(() => performance.now()));
  }
  await browser.close();
  bare.stop(true);
  const s = median(staticTimes);
  const d = median(inboxTimes);
  console.log(`bare static page, 50 rows: ${s.toFixed(0)} ms (median of ${RUNS})`);
  console.log(`dashboard inbox, first 50 of ${total} conversations: ${d.toFixed(0)} ms (median of ${RUNS}; load, token refresh, profile and list calls, render)`);
  console.log(`ratio inbox/bare: ${(d / s).toFixed(1)}`);
} finally {
  await server.stop();
}
