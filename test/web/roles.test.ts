// "What a role may not do is not offered" (docs/dashboard.md): an agent (messaging, no management) and a viewer
// (reads only) walk the screens in Chromium, screen by screen, against the real API.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser, Page } from "playwright-core";
import type { ChildServer } from "../helpers/process.ts";
import { axe, CHROMIUM, DESKTOP, launch, newPage, outboxBody, PHONE, scrollsSideways } from "./browser.ts";
import { call, connectedSession, ownerByApi, PASSWORD, startServer, uiLogin } from "./setup.ts";

const CUSTOMER = "919833300031";

describe.skipIf(!CHROMIUM)("roles in Chromium", () => {
  let server: ChildServer;
  let base: string;
  let browser: Browser;
  let campaignId: string;
  let webhookId: string;
  let ownerToken: string;

  async function member(token: string, dataDir: string, email: string, role: string, name: string) {
    expect((await call(base, "POST", "/api/team/invitations", { email, role }, token)).status).toBe(201);
    const invite = outboxBody(dataDir, email).match(/token=([\w-]+)/)![1];
    expect((await call(base, "POST", "/api/team/invitations/accept", { token: invite, name, password: PASSWORD })).status).toBe(201);
  }

  beforeAll(async () => {
    const s = await startServer();
    server = s.server;
    base = server.url;
    const token = await ownerByApi(base, s.dataDir, "roles.owner@example.com", "919811100031");
    ownerToken = token;
    const sessionId = await connectedSession(base, token, "Counter", "919822200031");
    await call(base, "POST", `/api/sim/sessions/${sessionId}/inbound`, { from: CUSTOMER, text: "Is the shop open?" }, token);
    const contact = await call(base, "POST", "/api/v1/contacts", { phone: "919833300032", name: "Ravi", tags: ["vip"] }, token);
    await call(base, "POST", "/api/v1/segments", { name: "VIPs", filter: { tagsAny: ["vip"] } }, token);
    const c = await call(base, "POST", "/api/v1/campaigns", { name: "Spring", sessionIds: [sessionId], message: { type: "text", body: "Hi {{name|there}}" }, audience: { contactIds: [contact.body.data.id] } }, token);
    expect(c.status).toBe(201);
    campaignId = c.body.data.id;
    const w = await call(base, "POST", "/api/webhooks", { name: "Orders", url: "http://127.0.0.1:9/hook", events: ["message_received"] }, token);
    expect(w.status).toBe(201);
    webhookId = w.body.data.id;
    await member(token, s.dataDir, "anil.agent@example.com", "agent", "Anil Agent");
    await member(token, s.dataDir, "vera.viewer@example.com", "viewer", "Vera Viewer");
    browser = await launch();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  async function signIn(email: string, viewport: typeof DESKTOP) {
    const { page, problems } = await newPage(await browser.newContext({ viewport }));
    await uiLogin(page, base, email);
    return { page, problems };
  }
  async function open(page: Page, path: string, ready: string) {
    await page.goto(`${base}/app/${path}`);
    await page.getByText(ready, { exact: true }).first().waitFor();
    await page.waitForLoadState("networkidle");
  }
  const count = (page: Page, role: "button" | "link" | "textbox", name: RegExp) => page.getByRole(role, { name }).count();

  test("an agent: replies, assigns and edits contacts and segments; manages no session, campaign, webhook, member, key or plan", async () => {
    const { page, problems } = await signIn("anil.agent@example.com", DESKTOP);
    await page.getByRole("link", { name: /\+919833300031/ }).click();
    await page.getByLabel("Reply").waitFor();
    // assign the conversation to oneself; "Assigned to me" then lists it
    await page.getByLabel("Assigned to").selectOption({ label: "Anil Agent (agent)" });
    await page.waitForFunction(() => (document.querySelector("select[name=userId]") as HTMLSelectElement | null)?.selectedOptions[0]?.textContent === "Anil Agent (agent)");
    const convs = await call(base, "GET", "/api/v1/inbox/conversations", undefined, ownerToken);
    expect(convs.body.data[0].assignee.name).toBe("Anil Agent");
    await page.getByLabel("Show").selectOption("mine");
    await page.getByRole("link", { name: /\+919833300031/ }).waitFor();
    expect(await page.getByRole("link", { name: "API keys" }).count()).toBe(0);

    await open(page, "contacts", "Ravi");
    expect(await page.getByText("Add a contact").count()).toBe(1);
    expect(await page.getByText("Import a CSV").count()).toBe(1);
    expect(await count(page, "button", /^Edit Ravi$/)).toBe(1);
    await open(page, "segments", "VIPs");
    expect(await count(page, "button", /^New segment$/)).toBe(1);
    expect(await count(page, "button", /^Edit VIPs$/)).toBe(1);

    await open(page, "sessions", "Counter");
    expect(await count(page, "button", /Create session|Connect|Disconnect|Delete/)).toBe(0);
    await open(page, "campaigns", "Spring");
    expect(await count(page, "link", /New campaign/)).toBe(0);
    await open(page, `campaigns/${campaignId}`, "Recipients");
    expect(await count(page, "button", /Start campaign|Cancel campaign|Delete campaign/)).toBe(0);
    await open(page, "webhooks", "Orders");
    expect(await page.getByText("Add a webhook").count()).toBe(0);
    await open(page, `webhooks/${webhookId}`, "History");
    expect(await count(page, "button", /Send a test event|Rotate secret|Switch off|Delete webhook|Save/)).toBe(0);
    expect(await page.getByRole("checkbox").count()).toBe(0);
    await open(page, "team", "Vera Viewer");
    expect(await page.getByText("Invite a member").count()).toBe(0);
    expect(await count(page, "button", /Remove|Make .* the owner/)).toBe(0);
    expect(await page.getByRole("combobox", { name: /Role of/ }).count()).toBe(0);
    await open(page, "billing", "Invoices");
    expect(await count(page, "button", /Choose/)).toBe(0);
    await open(page, "api-keys", "Not available to your role");
    expect(await page.getByText("Only owners and admins may manage API keys; you are an agent.").count()).toBe(1);
    await open(page, "campaigns/new", "Not available to your role");
    expect(await axe(page)).toEqual([]);
    expect(problems).toEqual([]);
  }, 90_000);

  test("a viewer on a phone: reads contacts, segments and the thread, and is offered no change to them", async () => {
    const { page, problems } = await signIn("vera.viewer@example.com", PHONE);
    await page.getByRole("link", { name: /\+919833300031/ }).click();
    await page.locator(".msg", { hasText: "Is the shop open?" }).waitFor();
    expect(await page.getByLabel("Reply").count()).toBe(0);
    await open(page, "contacts", "Ravi");
    expect(await page.getByText("Add a contact").count()).toBe(0);
    expect(await page.getByText("Import a CSV").count()).toBe(0);
    expect(await count(page, "button", /^Edit /)).toBe(0);
    expect(await count(page, "button", /Export CSV/)).toBe(1); // reading includes the export
    await open(page, "segments", "VIPs");
    expect(await count(page, "button", /New segment|Edit VIPs|Delete VIPs/)).toBe(0);
    await open(page, `campaigns/${campaignId}`, "Recipients");
    expect(await count(page, "button", /Start campaign|Cancel campaign|Delete campaign/)).toBe(0);
    expect(await scrollsSideways(page)).toBe(false);
    expect(problems).toEqual([]);
  }, 60_000);

  test("the owner deletes a session from its card, after the question", async () => {
    const { page, problems } = await signIn("roles.owner@example.com", DESKTOP);
    await open(page, "sessions", "Counter");
    await page.getByLabel("New session name").fill("Spare");
    await page.getByRole("button", { name: "Create session" }).click();
    await page.getByRole("button", { name: "Delete Spare" }).click();
    await page.getByRole("button", { name: "Yes, delete it" }).click();
    await page.getByRole("heading", { name: "Spare" }).waitFor({ state: "detached" });
    const list = await call(base, "GET", "/api/v1/chatapp", undefined, ownerToken);
    expect(list.body.data.map((x: { name: string }) => x.name)).toEqual(["Counter"]);
    expect(problems).toEqual([]);
  }, 30_000);
});
