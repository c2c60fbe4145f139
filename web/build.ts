import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";

/** The dashboard's three files, as served under /app. */
export interface WebAssets {
  html: string;
  js: string;
  css: string;
}

const ROOT = import.meta.dir;

/** Bundles web/src with Bun's bundler (React in production mode, minified) into strings. */
export async function buildWeb(): Promise<WebAssets> {
  const result = await Bun.build({
    entrypoints: [join(ROOT, "src/main.tsx")],
    target: "browser",
    minify: true,
    define: { "process.env.NODE_ENV": JSON.stringify("production") },
  });
  if (!result.success) throw new AggregateError(result.logs, "the dashboard did not build");
  const entry = result.outputs.find((o) => o.kind === "entry-point");
  if (!entry) throw new Error("the dashboard build produced no script");
  const js = await entry.text();
  const css = await Bun.file(join(ROOT, "src/styles.css")).text();
  // the query strings change with the content, so the assets can be cached for long
  const version = Bun.hash(js + css).toString(36);
  const html = (await Bun.file(join(ROOT, "index.html")).text()).replaceAll("%VERSION%", version);
  return { html, js, css };
}

/** Sizes of the assets as sent: raw and gzip. */
export function assetSizes(a: WebAssets) {
  return Object.fromEntries(
    (["html", "js", "css"] as const).map((k) => [k, { bytes: Buffer.byteLength(a[k]), gzip: gzipSync(a[k]).byteLength }]),
  );
}

// `bun web/build.ts [outDir]`: the build script's first step; the binary embeds what it writes
if (import.meta.main) {
  const out = process.argv[2] ?? join(ROOT, "../dist/web");
  const assets = await buildWeb();
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, "index.html"), assets.html);
  writeFileSync(join(out, "app.js"), assets.js);
  writeFileSync(join(out, "app.css"), assets.css);
  const sizes = assetSizes(assets);
  const total = Object.values(sizes).reduce((s, v) => s + v.gzip, 0);
  console.log(`dashboard assets in ${out}: ${JSON.stringify(sizes)}; ${(total / 1024).toFixed(1)} KiB gzip in total`);
}
