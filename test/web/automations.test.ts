// Auto-replies in the dashboard (docs/automations.md), in real Chromium: the list, the form with its
// preview, and the automated answer marked in the inbox thread.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser, Page } from "playwright-core";
import type { ChildServer } from "../helpers/process.ts";
import { axe, CHROMIUM, DESKTOP, launch, newPage, PHONE, scrollsSideways, shot } from "./browser.ts";
import { call, connectedSession, ownerByApi, startServer, uiLogin } from "./setup.ts";

const CUSTOMER = "919833300071";

describe.skipIf(!CHROMIUM)("automations in Chromium", () => {
  let server: ChildServer;
  let browser: Browser;
  let page: Page;
  let problems: string[];
  let token: string;
  let sessionId: string;

  beforeAll(async () => {
    const s = await startServer();
    server = s.server;
    token = await ownerByApi(server.url, s.dataDir, "auto@example.com", "919811100071");
    sessionId = await connectedSession(server.url, token, "Front desk", "919822200071");
    browser = await launch();
    ({ page, problems } = await newPage(await browser.newContext({ viewport: DESKTOP })));
    await uiLogin(page, server.url, "auto@example.com");
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  test("a keyword automation is created with a preview; a sim PRICE gets the automated answer in the thread", async () => {
    await page.getByRole("link", { name: "Automations" }).click();
    await page.getByText("No automations yet.").waitFor();
    await page.getByText("Add an automation").click();
    await page.getByLabel("Automation name").fill("Prices");
    await page.getByLabel("Keywords (comma-separated)").fill("price, cost");
    await page.getByLabel("Reply", { exact: true }).fill("Hi {{name|there}}, our prices: example.com/prices");
    await page.getByTestId("automation-preview").getByText("Hi Asha, our prices: example.com/prices").waitFor();
    // a bad value is named beside its field
    await page.getByLabel("Cooldown per contact (minutes)").fill("-5");
    await page.getByRole("button", { name: "Create automation" }).click();
    await page.locator(".field.invalid", { hasText: /Cooldown/ }).waitFor();
    await page.getByLabel("Cooldown per contact (minutes)").fill("60");
    expect(await axe(page)).toEqual([]);
    await shot(page, "automations-new-desktop");
    await page.getByRole("button", { name: "Create automation" }).click();
    const card = page.getByTestId("automation").filter({ hasText: "Prices" });
    await card.getByText("Keyword (exact): price, cost").waitFor();

    const r = await call(server.url, "POST", `/api/sim/sessions/${sessionId}/inbound`, { from: CUSTOMER, text: "PRICE" }, token);
    expect(r.status).toBe(200);
    await page.getByRole("link", { name: "Inbox" }).click();
    await page.getByRole("link", { name: /\+919833300071/ }).click();
    await page.locator(".msg.inbound", { hasText: "PRICE" }).waitFor();
    const answer = page.locator(".msg.outbound", { hasText: "Hi there, our prices: example.com/prices" });
    await answer.waitFor({ timeout: 15_000 });
    await answer.getByTestId("automated").waitFor();
    expect(await axe(page)).toEqual([]);
    await shot(page, "automations-thread-desktop");
    expect(problems).toEqual([]);
  }, 60_000);

  test("edit an automation; the page holds at 375 px", async () => {
    await page.getByRole("link", { name: "Automations" }).click();
    await page.getByRole("button", { name: "Edit Prices" }).click();
    await page.getByLabel("Trigger").selectOption("away");
    await page.getByLabel(/Working hours/).fill("mon 09:00-17:00\nsat 10:00-13:00");
    await page.getByRole("button", { name: "Save automation" }).click();
    await page.getByTestId("automation").getByText("Away: outside the working hours").waitFor();
    const list = await call(server.url, "GET", "/api/v1/automations", undefined, token);
    expect(list.body.data[0].trigger).toEqual({ type: "away", hours: { mon: [{ from: "09:00", to: "17:00" }], sat: [{ from: "10:00", to: "13:00" }] } });
    // the away hours are read in the workspace's time zone, set with the workspace's settings
    await page.getByRole("link", { name: "Team" }).click();
    await page.getByText("Workspace settings").click();
    await page.getByLabel(/Time zone/).fill("Mars/Olympus");
    await page.getByRole("button", { name: "Save settings" }).click();
    await page.locator(".field.invalid", { hasText: "not a known IANA time zone" }).waitFor();
    await page.getByLabel(/Time zone/).fill("Asia/Kolkata");
    await page.getByRole("button", { name: "Save settings" }).click();
    await page.getByRole("status").getByText("Saved.").waitFor();
    expect((await call(server.url, "GET", "/api/workspace", undefined, token)).body.data.timezone).toBe("Asia/Kolkata");
    await page.getByRole("link", { name: "Automations" }).click();
    await page.getByTestId("automation").first().waitFor();
    await page.setViewportSize(PHONE);
    expect(await scrollsSideways(page)).toBe(false);
    expect(await axe(page)).toEqual([]);
    await shot(page, "automations-phone");
    await page.setViewportSize(DESKTOP);
    expect(problems).toEqual([]);
  }, 60_000);
});
