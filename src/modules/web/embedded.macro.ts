import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";

/**
 * Bun macro: at `bun build --compile` time, with PARLEY_WEB_DIST naming the folder that
 * `bun web/build.ts` wrote, returns the dashboard's files so the binary carries them. Without
 * it (running from source) returns null and the server builds the dashboard itself.
 * Import it `with { type: "macro" }`.
 */
export function embeddedWeb(): { html: string; js: string; css: string } | null {
  const dir = process.env.PARLEY_WEB_DIST;
  if (!dir) return null;
  const read = (f: string) => {
    const p = join(dir, f);
    if (!existsSync(p)) throw new Error(`PARLEY_WEB_DIST=${dir} has no ${f}: run bun web/build.ts first`);
    return readFileSync(p, "utf8");
  };
  return { html: read("index.html"), js: read("app.js"), css: read("app.css") };
}
