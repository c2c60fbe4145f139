// Real Chromium (Debian's package) driven by playwright-core; nothing downloads a browser.
import { Database } from "bun:sqlite";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";
import { ROOT } from "../helpers/process.ts";

const CANDIDATES = [process.env.CHROMIUM_PATH, "/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"].filter(Boolean) as string[];
export const CHROMIUM = CANDIDATES.find((p) => existsSync(p)) ?? null;
if (!CHROMIUM) {
  console.error("\n!!!!!!!! test/web: NO CHROMIUM FOUND (looked at " + CANDIDATES.join(", ") + ").");
  console.error("!!!!!!!! The dashboard's browser tests are SKIPPED. Install it: apt-get install -y chromium\n");
}

export const SHOTS = join(ROOT, "test-artifacts/screenshots");
export const DESKTOP = { width: 1280, height: 800 };
export const PHONE = { width: 375, height: 740 };

/**
 * Headless Chromium with the flags that keep it off the network. playwright gives every launch
 * a fresh temporary --user-data-dir of its own (it refuses one in `args`).
 */
export async function launch(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM!,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}

/** A page that records CSP violations and script errors, so a test can assert there were none. */
export async function newPage(ctx: BrowserContext): Promise<{ page: Page; problems: string[] }> {
  const page = await ctx.newPage();
  const problems: string[] = [];
  page.on("pageerror", (e) => problems.push(`pageerror: ${e.message}`));
  page.on("console", (m) => {
    const t = m.text();
    if (/Content Security Policy|Refused to/i.test(t)) problems.push(`csp: ${t}`);
  });
  return { page, problems };
}

const AXE = readFileSync(join(ROOT, "node_modules/axe-core/axe.min.js"), "utf8");

/** Runs axe-core in the page (through the debugger, so the page's CSP stays on) and returns serious and critical violations. */
export async function axe(page: Page): Promise<string[]> {
  await page.evaluate(AXE);
  const found = (await page.evaluate(async () => {
    const w = window as unknown as { axe: { run: (ctx: Document, o: unknown) => Promise<{ violations: { id: string; impact: string; nodes: { target: string[] }[] }[] }> } };
    const r = await w.axe.run(document, { resultTypes: ["violations"] });
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, targets: v.nodes.slice(0, 3).map((n) => n.target.join(" ")) }));
  })) as { id: string; impact: string; targets: string[] }[];
  return found.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => `${v.id} (${v.impact}): ${v.targets.join(", ")}`);
}

/** True when the page scrolls sideways (it must not at 375 px). */
export function scrollsSideways(page: Page): Promise<boolean> {
  return page.evaluate(() => document.documentElement.scrollWidth > document.documentElement.clientWidth + 1);
}

/** Saves a screenshot as test-artifacts/screenshots/<name>.png. */
export async function shot(page: Page, name: string) {
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: false });
}

/** The newest code of the local outbox (the `log` channel) for a recipient. */
export function outboxCode(dataDir: string, recipient: string): string {
  const body = outboxBody(dataDir, recipient);
  const m = body.match(/\b(\d{6})\b/);
  if (!m) throw new Error(`no code in the outbox for ${recipient}: ${body}`);
  return m[1]!;
}

/** The newest outbox text sent to a recipient. */
export function outboxBody(dataDir: string, recipient: string): string {
  const db = new Database(join(dataDir, "parley.db"), { readonly: true });
  try {
    const row = db.query("SELECT body FROM notifications WHERE recipient = ? ORDER BY created_at DESC, id DESC LIMIT 1").get(recipient) as { body: string } | null;
    if (!row) throw new Error(`nothing in the outbox for ${recipient}`);
    return row.body;
  } finally {
    db.close();
  }
}

/** Single words in table cells that the layout split over lines (a phone must not show "R e tr y"). */
export function splitWordsInTables(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const split: string[] = [];
    for (const el of Array.from(document.querySelectorAll("main th, main td"))) {
      const text = (el.textContent ?? "").trim();
      // .break marks text meant to break anywhere (emails, URLs)
      if (!text || /\s/.test(text) || el.closest(".break")) continue;
      // the line boxes of the text itself (a range over an element would add the boxes of its children)
      const walk = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
      for (let n = walk.nextNode(); n; n = walk.nextNode()) {
        const r = document.createRange();
        r.selectNodeContents(n);
        const lines = new Set(Array.from(r.getClientRects()).filter((x) => x.width > 0).map((x) => Math.round(x.top)));
        if (lines.size > 1) split.push(text);
      }
    }
    return split;
  });
}
