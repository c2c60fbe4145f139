// A self-hoster's first day, in real Chromium with nothing but the browser: from the setup link
// the start log prints to a connected (simulated) number, an imported contact list and a first
// campaign that completes. No terminal, no API shortcuts: everything below is clicked.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { spawnServer, type ChildServer } from "../helpers/process.ts";
import { axe, CHROMIUM, DESKTOP, launch, newPage, PHONE, scrollsSideways, shot } from "./browser.ts";

const PASSWORD = "Correct-horse-battery-9";
const CONTACTS = 12;

/** The CSV a shop owner has: national numbers (no country code), a `City` column, one number that is not a number. */
function csv(): string {
  const lines = ["phone,name,City"];
  for (let i = 0; i < CONTACTS; i++) lines.push(`98000 ${String(10001 + i).padStart(5, "0")},Customer ${i},${i === CONTACTS - 1 ? "" : i % 2 ? "Pune" : "Delhi"}`);
  lines.push("98000 0001,Short number,Pune");
  return lines.join("\n") + "\n";
}

/** The newest setup link of the start log. */
function setupLink(server: ChildServer): string | null {
  const lines = server
    .logs()
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l) as { msg: string; url?: string });
  return lines.find((l) => l.msg.includes("one-time link"))?.url ?? null;
}

describe.skipIf(!CHROMIUM)("a new owner's first day in Chromium", () => {
  let server: ChildServer;
  let browser: Browser;
  let page: Page;
  let problems: string[];

  beforeAll(async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "parley-first-day-"));
    // the defaults a newcomer has (captcha on, no mail, no SMS), on the sim network, with the
    // country of the shop's numbers set and send gaps small enough for a test
    server = await spawnServer({
      dataDir,
      env: {
        PARLEY_DEFAULT_COUNTRY: "IN",
        PARLEY_SIM_QR_ROTATE_MS: "1500",
        PARLEY_SIM_QR_MAX_ROTATIONS: "100",
        PARLEY_SEND_MIN_GAP_MS: "100",
        PARLEY_SEND_JITTER_MS: "0",
      },
    });
    browser = await launch();
    ({ page, problems } = await newPage(await browser.newContext({ viewport: DESKTOP })));
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  test("the start log's setup link creates the owner and workspace, no captcha and no codes, and lands on the first steps", async () => {
    for (let i = 0; i < 200 && !setupLink(server); i++) await Bun.sleep(10);
    expect(server.logs()).toContain(`"msg":"dashboard","url":"${server.url}/app/"`);
    const link = setupLink(server)!;
    expect(link).toStartWith(`${server.url}/app/setup?token=`);
    // the dashboard's address alone leads to the log-in page, which says where to go instead
    await page.goto(server.url + "/");
    await page.getByTestId("needs-setup").getByText(/setup link from the server's start log/).waitFor();
    await page.goto(link);
    await page.getByRole("heading", { name: "Set up Parley" }).waitFor();
    expect(await page.getByRole("img", { name: /Captcha/ }).count()).toBe(0);
    await page.getByLabel("Your name").fill("Asha Rao");
    await page.getByLabel("Business name").fill("Asha's Sarees");
    await page.getByLabel("Email").fill("asha@example.com");
    await page.getByLabel("Password", { exact: true }).fill(PASSWORD);
    await page.getByLabel("Password again").fill(PASSWORD + "x");
    await page.getByRole("button", { name: "Create workspace" }).click();
    // the mismatch is said at once, beside its field
    await page.locator(".field.invalid", { hasText: "must equal the password" }).waitFor();
    await page.getByLabel("Password again").fill(PASSWORD);
    expect(await axe(page)).toEqual([]);
    await shot(page, "first-day-setup");
    await page.getByRole("button", { name: "Create workspace" }).click();
    await page.getByRole("heading", { name: "Inbox" }).waitFor();
    const steps = page.getByRole("region", { name: "First steps" });
    await steps.getByText("4 of 4 steps left.").waitFor();
    // the operator's own workspace: no billing screens
    // the navigation learns the plan from the subscription, which may answer after the inbox
    const billing = page.getByRole("link", { name: "Billing" });
    for (let i = 0; i < 100 && (await billing.count()) > 0; i++) await Bun.sleep(50);
    expect(await billing.count()).toBe(0);
    expect(await axe(page)).toEqual([]);
    await shot(page, "first-day-checklist");
    // the link worked once
    const again = await browser.newPage();
    await again.goto(link);
    await again.getByRole("heading", { name: "This setup link does not work" }).waitFor();
    await again.close();
    expect(problems).toEqual([]);
  }, 60_000);

  test("pair a number: create a session, connect, and link it by a simulated scan", async () => {
    await page.getByRole("region", { name: "First steps" }).getByRole("link", { name: "Pair a number" }).click();
    await page.getByRole("heading", { name: "Sessions" }).waitFor();
    await page.getByLabel("New session name").fill("Shop phone");
    await page.getByRole("button", { name: "Create session" }).click();
    await page.getByRole("button", { name: "Connect Shop phone" }).click();
    await page.getByRole("img", { name: /QR code to link Shop phone/ }).waitFor({ timeout: 20_000 });
    // typed as the owner knows it: the server's default country fills in +91
    await page.getByLabel("Simulated number").fill("98000 99999");
    expect(await axe(page)).toEqual([]);
    await shot(page, "first-day-pair");
    await page.getByRole("button", { name: "Simulate the scan of Shop phone" }).click();
    await page.getByTestId("session-status").getByText("Connected").waitFor({ timeout: 20_000 });
    await page.getByText("as +91").waitFor();
    expect(problems).toEqual([]);
  }, 60_000);

  test("import contacts: national numbers become the default country's, a short one is refused saying what it was read as", async () => {
    await page.getByRole("link", { name: "Contacts" }).click();
    await page.getByText("Import a CSV").click();
    await page.getByLabel("CSV file").setInputFiles({ name: "customers.csv", mimeType: "text/csv", buffer: Buffer.from(csv()) });
    await page.getByRole("button", { name: "Import", exact: true }).click();
    const status = page.locator(".import-status");
    await status.getByText(/Import completed/).waitFor({ timeout: 30_000 });
    expect(await status.textContent()).toContain(`${CONTACTS} created · 0 updated · 1 rejected`);
    await status.getByText("1 rejected rows").click();
    await status.getByText(/not a valid number: understood as/).waitFor();
    await page.getByRole("cell", { name: "Customer 3", exact: true }).first().waitFor();
    await page.getByText("919800010004").or(page.getByText("+91 98000 10004")).first().waitFor();
    expect(problems).toEqual([]);
  }, 60_000);

  test("a first campaign: warm-up explained before start, a City column read as {{attributes.city}}, a contact without it flagged; it completes and its recipients show it", async () => {
    await page.getByRole("link", { name: "Campaigns" }).click();
    await page.getByRole("link", { name: "New campaign" }).click();
    await page.getByLabel("Campaign name").fill("Diwali offer");
    await page.getByLabel(/Shop phone/).check();
    await page.getByTestId("warmup-note").getByText(/at most 50 campaign messages a day/).waitFor();
    await page.getByLabel("Message", { exact: true }).fill("Hi {{name|friend}} from {{attributes.city|your city}}: 20% off today.");
    // the column is `City`; the variable says `city`: the preview reads it all the same
    await page.getByLabel("Sample contact").selectOption({ label: "Customer 9" });
    await page.getByTestId("campaign-preview").getByText("Hi Customer 9 from Pune: 20% off today.").waitFor();
    // the newest contact has no City: the preview says so instead of quietly showing the default
    await page.getByTestId("missing-attribute").getByText(/no “city” attribute \(Customer 11\)/).waitFor();
    await page.getByText("Pacing and quiet hours").click();
    await page.getByLabel("Messages a minute per session").fill("600");
    expect(await axe(page)).toEqual([]);
    await shot(page, "first-day-campaign-new");
    await page.getByRole("button", { name: "Create draft" }).click();
    const status = page.getByTestId("campaign-status");
    await status.getByText("draft").waitFor();
    await page.getByRole("button", { name: "Start campaign" }).click();
    await status.getByText("completed").waitFor({ timeout: 60_000 });
    // the recipients table follows the campaign: no row left "pending" after it completed, without a reload
    await page.waitForFunction(
      (n) => {
        const cells = Array.from(document.querySelectorAll("tbody tr td:nth-child(2)")).map((c) => c.textContent);
        return cells.length === n && cells.every((c) => c === "sent" || c === "delivered" || c === "read");
      },
      CONTACTS,
      { timeout: 20_000 },
    );
    expect(await axe(page)).toEqual([]);
    await shot(page, "first-day-campaign-done");
    await page.setViewportSize(PHONE);
    expect(await scrollsSideways(page)).toBe(false);
    await page.setViewportSize(DESKTOP);
    expect(problems).toEqual([]);
  }, 90_000);

  test("back home, the first steps have ticked themselves off: only the webhook is left", async () => {
    await page.getByRole("link", { name: "Inbox" }).click();
    const steps = page.getByRole("region", { name: "First steps" });
    await steps.waitFor();
    // the steps read the workspace's data when the screen opens: say what they showed if it is not this
    await steps
      .getByText("One step left.")
      .waitFor({ timeout: 20_000 })
      .catch(async (err) => {
        throw new Error(`first steps showed: ${await steps.textContent()}`, { cause: err });
      });
    await steps.getByRole("link", { name: "Add a webhook" }).waitFor();
    expect(await steps.getByRole("link").count()).toBe(1);
    await shot(page, "first-day-checklist-after");
    // this server has its captcha on: the log-in page shows it (the setup link needed none)
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByRole("heading", { name: "Sign in to Parley" }).waitFor();
    await page.getByRole("img", { name: /Captcha/ }).waitFor();
    expect(problems).toEqual([]);
  }, 30_000);
});
