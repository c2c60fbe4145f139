// Two members in the same thread, in real Chromium (docs/inbox.md): what one schedules, and
// cancels, shows in the other's open thread at once, without a reload.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser, Page } from "playwright-core";
import type { ChildServer } from "../helpers/process.ts";
import { CHROMIUM, DESKTOP, launch, newPage, outboxBody } from "./browser.ts";
import { call, connectedSession, ownerByApi, PASSWORD, startServer, uiLogin, until } from "./setup.ts";

const MEERA = "919833300011";

describe.skipIf(!CHROMIUM)("a scheduled send live in another member's thread, in Chromium", () => {
  let server: ChildServer;
  let browser: Browser;
  let ownerPage: Page;
  let agentPage: Page;
  let problems: string[][];
  let conv: string;

  beforeAll(async () => {
    let dataDir: string;
    ({ server, dataDir } = await startServer());
    const owner = await ownerByApi(server.url, dataDir, "live@example.com", "919811100088");
    const shop = await connectedSession(server.url, owner, "Shop phone", "919822200088");
    expect((await call(server.url, "POST", "/api/team/invitations", { email: "arun.agent@example.com", role: "agent" }, owner)).status).toBe(201);
    const invite = outboxBody(dataDir, "arun.agent@example.com").match(/token=([\w-]+)/)![1];
    expect((await call(server.url, "POST", "/api/team/invitations/accept", { token: invite, name: "Arun Agent", password: PASSWORD })).status).toBe(201);
    expect((await call(server.url, "POST", `/api/sim/sessions/${shop}/inbound`, { from: MEERA, text: "Can you call me back tomorrow?", pushName: "Meera" }, owner)).status).toBe(200);
    conv = await until(async () => (await call(server.url, "GET", `/api/v1/inbox/conversations?q=${MEERA}`, undefined, owner)).body.data[0]?.id as string | undefined, "the conversation");
    browser = await launch();
    const a = await newPage(await browser.newContext({ viewport: DESKTOP }));
    const b = await newPage(await browser.newContext({ viewport: DESKTOP }));
    ownerPage = a.page;
    agentPage = b.page;
    problems = [a.problems, b.problems];
    await uiLogin(ownerPage, server.url, "live@example.com");
    await uiLogin(agentPage, server.url, "arun.agent@example.com");
    for (const p of [ownerPage, agentPage]) {
      await p.goto(`${server.url}/app/inbox/${conv}`);
      await p.locator(".msg.inbound", { hasText: "Can you call me back tomorrow?" }).waitFor();
    }
    // a mark a reload would wipe out
    await agentPage.evaluate(() => ((window as unknown as { notReloaded: boolean }).notReloaded = true));
  }, 90_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  test("the owner schedules a follow-up: the agent's open thread shows it; the owner cancels it: it shows cancelled", async () => {
    await ownerPage.getByLabel("Reply").fill("Calling you at ten tomorrow");
    await ownerPage.getByLabel("Send later").check();
    const at = new Date(Date.now() + 86_400_000);
    const local = new Date(at.getTime() - at.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
    await ownerPage.getByLabel("Send at").fill(local);
    await ownerPage.getByRole("button", { name: "Schedule", exact: true }).click();
    await ownerPage.locator(".msg.scheduled", { hasText: "Calling you at ten tomorrow" }).waitFor();

    const seen = agentPage.locator(".msg.scheduled", { hasText: "Calling you at ten tomorrow" });
    await seen.waitFor({ timeout: 10_000 });
    expect(await seen.textContent()).toContain("Scheduled for");

    await ownerPage.locator(".msg.scheduled", { hasText: "Calling you at ten tomorrow" }).getByRole("button", { name: "Cancel scheduled message" }).click();
    await agentPage.locator(".msg", { hasText: "Calling you at ten tomorrow" }).filter({ hasText: "cancelled" }).waitFor({ timeout: 10_000 });
    expect(await agentPage.locator(".msg.scheduled", { hasText: "Calling you at ten tomorrow" }).count()).toBe(0);
    expect(await agentPage.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded)).toBe(true);
    expect(problems).toEqual([[], []]);
  }, 30_000);
});
