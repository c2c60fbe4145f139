// The compiled binary carries the dashboard: built by `bun web/build.ts`, embedded by the macro,
// served from an empty folder with no source tree beside it.
import { afterAll, expect, test } from "bun:test";
import { copyFileSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BUN, ROOT, spawnServer, type ChildServer } from "../helpers/process.ts";

let server: ChildServer | undefined;
afterAll(async () => {
  await server?.stop();
});

test("npm run build's two steps embed the dashboard in the binary", async () => {
  const build = mkdtempSync(join(tmpdir(), "parley-web-build-"));
  const web = join(build, "web");
  const step1 = Bun.spawnSync([BUN, join(ROOT, "web/build.ts"), web], { cwd: ROOT, stderr: "pipe", stdout: "pipe" });
  expect(step1.exitCode).toBe(0);
  expect(step1.stdout.toString()).toContain("KiB gzip in total");
  const out = join(build, "parley");
  const step2 = Bun.spawnSync([BUN, "build", "--compile", join(ROOT, "src/main.ts"), "--outfile", out], {
    cwd: ROOT,
    env: { ...process.env, PARLEY_WEB_DIST: web },
    stderr: "pipe",
    stdout: "pipe",
  });
  expect(step2.stderr.toString()).not.toContain("error");
  expect(step2.exitCode).toBe(0);

  const alone = mkdtempSync(join(tmpdir(), "parley-web-bin-"));
  copyFileSync(out, join(alone, "parley"));
  server = await spawnServer({ dataDir: join(alone, "data"), cmd: [join(alone, "parley")], cwd: alone });
  const page = await fetch(`${server.url}/app/`);
  expect(page.status).toBe(200);
  expect(page.headers.get("content-security-policy")).toContain("default-src 'self'");
  expect(await page.text()).toBe(readFileSync(join(web, "index.html"), "utf8"));
  const js = await fetch(`${server.url}/app/assets/app.js`);
  expect(js.headers.get("content-type")).toContain("javascript");
  expect(await js.text()).toBe(readFileSync(join(web, "app.js"), "utf8"));
  expect(await (await fetch(`${server.url}/app/assets/app.css`)).text()).toBe(readFileSync(join(web, "app.css"), "utf8"));
}, 180_000);
