// A morning of an agent in the inbox, in real Chromium (docs/inbox.md, docs/dashboard.md): filter
// "needs reply", search an old message and open its thread at the hit, label and note a
// conversation, answer with a quick reply, schedule a follow-up (and cancel another), react;
// the number each conversation belongs to, unread counts, the contact panel; axe at 1280 and 375 px.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser, Page } from "playwright-core";
import type { ChildServer } from "../helpers/process.ts";
import { readSimSent } from "../helpers/sim-sent.ts";
import { axe, CHROMIUM, DESKTOP, launch, newPage, outboxBody, PHONE, scrollsSideways, shot } from "./browser.ts";
import { call, connectedSession, login, ownerByApi, PASSWORD, startServer, uiLogin, until } from "./setup.ts";

const ASHA = "919833300001";
const RAVI = "919833300002";
const BROADCAST = "919833300003";

describe.skipIf(!CHROMIUM)("an agent's morning in the inbox, in Chromium", () => {
  let server: ChildServer;
  let dataDir: string;
  let browser: Browser;
  let page: Page;
  let problems: string[];
  let owner: string;
  let shop: string;
  let second: string;
  let ashaConv: string;

  const inbound = (sessionId: string, from: string, text: string, pushName?: string) =>
    call(server.url, "POST", `/api/sim/sessions/${sessionId}/inbound`, { from, text, pushName }, owner);
  const conversationOf = async (sessionId: string, phone: string) =>
    until(async () => (await call(server.url, "GET", `/api/v1/inbox/conversations?sessionId=${sessionId}&q=${phone}`, undefined, owner)).body.data[0]?.id as string | undefined, "the conversation");

  beforeAll(async () => {
    ({ server, dataDir } = await startServer());
    owner = await ownerByApi(server.url, dataDir, "morning@example.com", "919811100077");
    shop = await connectedSession(server.url, owner, "Shop phone", "919822200077");
    second = await connectedSession(server.url, owner, "Support line", "919822200078");
    // the agent
    expect((await call(server.url, "POST", "/api/team/invitations", { email: "priya.agent@example.com", role: "agent" }, owner)).status).toBe(201);
    const invite = outboxBody(dataDir, "priya.agent@example.com").match(/token=([\w-]+)/)![1];
    expect((await call(server.url, "POST", "/api/team/invitations/accept", { token: invite, name: "Priya Agent", password: PASSWORD })).status).toBe(201);
    // a contact with tags and attributes, a quick reply with a variable
    expect((await call(server.url, "POST", "/api/v1/contacts", { phone: ASHA, name: "Asha", tags: ["vip-customer"], attributes: { city: "Pune" } }, owner)).status).toBe(201);
    expect((await call(server.url, "POST", "/api/v1/quick-replies", { shortcut: "thanks", body: "Thanks {{name|friend}}, we are on it!" }, owner)).status).toBe(201);
    // yesterday's question, answered: it needs no reply now
    expect((await inbound(shop, ASHA, "Is the blue kurta back in stock?")).status).toBe(200);
    ashaConv = await conversationOf(shop, ASHA);
    await call(server.url, "POST", `/api/v1/inbox/conversations/${ashaConv}/read`, undefined, owner);
    const ans = await call(server.url, "POST", "/api/v1/messages/send", { session_id: shop, to: ASHA, body: "Not yet, next week." }, owner);
    expect(ans.status).toBe(202);
    // a one-way message from us on the second number
    expect((await call(server.url, "POST", "/api/v1/messages/send", { session_id: second, to: BROADCAST, body: "Your order shipped" }, owner)).status).toBe(202);
    // this morning's question, on the second number
    expect((await inbound(second, RAVI, "Where is my order 42?", "Ravi")).status).toBe(200);
    await login(server.url, "priya.agent@example.com");
    browser = await launch();
    ({ page, problems } = await newPage(await browser.newContext({ viewport: DESKTOP })));
    await uiLogin(page, server.url, "priya.agent@example.com");
  }, 90_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  test("the list: the number each conversation belongs to, times, unread counts in the navigation and the tab title", async () => {
    const list = page.getByRole("list", { name: "Conversations" });
    await list.getByRole("link", { name: /Ravi/ }).waitFor();
    expect(await list.getByRole("link", { name: /Ravi/ }).textContent()).toContain("Support line · +919822200078");
    expect(await list.getByRole("link", { name: /Asha/ }).textContent()).toContain("Shop phone · +919822200077");
    expect(await list.locator("time").count()).toBe(3);
    await page.getByRole("navigation").getByText("(1 unread)").waitFor();
    await page.waitForFunction(() => document.title === "(1) Parley");
    expect(await page.getByRole("button", { name: "Turn on notifications" }).count()).toBe(1);
    expect(problems).toEqual([]);
  }, 30_000);

  test('filter "needs reply": only the question that waits', async () => {
    await page.getByLabel("Show").selectOption("needsReply");
    const list = page.getByRole("list", { name: "Conversations" });
    await page.waitForFunction(() => document.querySelectorAll('[aria-label="Conversations"] li').length === 1);
    expect(await list.getByRole("link").allTextContents()).toEqual([expect.stringContaining("Ravi")]);
    expect(await axe(page)).toEqual([]);
    await shot(page, "inbox-needs-reply-desktop");
    await page.getByRole("button", { name: "Clear filters" }).click();
    await page.waitForFunction(() => document.querySelectorAll('[aria-label="Conversations"] li').length === 3);
    expect(problems).toEqual([]);
  }, 30_000);

  test("search an old message: the hit opens its thread at that message", async () => {
    await page.getByLabel("Search messages").fill("kurta");
    await page.getByRole("button", { name: "Search", exact: true }).click();
    const hits = page.getByRole("list", { name: "Messages found" });
    await hits.getByRole("link", { name: /blue kurta/ }).click();
    await page.getByRole("heading", { name: "Asha" }).waitFor();
    await page.locator(".msg.hit", { hasText: "Is the blue kurta back in stock?" }).waitFor();
    expect(await page.getByTestId("via").textContent()).toContain("Shop phone · +919822200077");
    // the contact panel
    const panel = page.getByRole("complementary", { name: "Contact" });
    await panel.getByText("vip-customer").waitFor();
    await panel.getByText("Pune").waitFor();
    expect(await panel.getByText("Subscribed").count()).toBe(1);
    await page.getByRole("button", { name: "Back to conversations" }).click();
    expect(problems).toEqual([]);
  }, 30_000);

  test("label and note the conversation: the note is marked as internal, never sent", async () => {
    await page.getByLabel("Add a label").fill("VIP");
    await page.getByRole("button", { name: "Add label" }).click();
    await page.getByRole("list", { name: "Labels" }).getByText("vip").waitFor();
    await page.getByLabel("Status").last().selectOption("pending");
    await page.getByLabel("Internal note").check();
    await page.getByLabel("Note for the team").fill("Asha buys every month: keep one kurta aside");
    await page.getByRole("button", { name: "Add note" }).click();
    const note = page.locator("li.note", { hasText: "keep one kurta aside" });
    await note.waitFor();
    expect(await note.textContent()).toContain("Internal note · Priya Agent");
    expect(await page.locator(".msg", { hasText: "keep one kurta aside" }).count()).toBe(0);
    const c = await until(async () => {
      const r = (await call(server.url, "GET", `/api/v1/inbox/conversations/${ashaConv}`, undefined, owner)).body.data;
      return r.status === "pending" && r.labels.includes("vip") ? r : null;
    }, "the label and status");
    expect(c.labels).toEqual(["vip"]);
    expect(readSimSent(dataDir).some((e) => e.text?.includes("kurta aside"))).toBe(false);
    expect(await axe(page)).toEqual([]);
    await page.evaluate(() => window.scrollTo(0, 0));
    await shot(page, "inbox-note-labels-desktop");
    expect(problems).toEqual([]);
  }, 30_000);

  test("answer with a quick reply picked with /: the server fills the contact's name", async () => {
    await page.getByLabel("Message", { exact: true }).check();
    await page.getByLabel("Reply").fill("/tha");
    await page.getByRole("option", { name: /\/thanks/ }).waitFor();
    await page.getByLabel("Reply").press("Enter");
    await page.getByText("Quick reply /thanks").waitFor();
    await page.getByRole("button", { name: "Send", exact: true }).click();
    const sent = await until(async () => readSimSent(dataDir).find((e) => e.to === ASHA && e.text?.startsWith("Thanks")), "the quick reply on the network");
    expect(sent.text).toBe("Thanks Asha, we are on it!");
    await page.locator(".msg.outbound", { hasText: "Thanks Asha, we are on it!" }).waitFor();
    expect(problems).toEqual([]);
  }, 30_000);

  test("schedule a follow-up (shown, cancellable), and cancel another", async () => {
    await page.getByLabel("Reply").fill("Checking in: did the kurta fit?");
    await page.getByLabel("Send later").check();
    const at = new Date(Date.now() + 2 * 86_400_000);
    const local = new Date(at.getTime() - at.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
    await page.getByLabel("Send at").fill(local);
    await page.getByRole("button", { name: "Schedule", exact: true }).click();
    const scheduled = page.locator(".msg.scheduled", { hasText: "did the kurta fit?" });
    await scheduled.waitFor();
    expect(await scheduled.textContent()).toContain("Scheduled for");
    const rows = (await call(server.url, "GET", `/api/v1/inbox/conversations/${ashaConv}/messages`, undefined, owner)).body.data;
    const row = rows.find((m: { body: string | null }) => m.body === "Checking in: did the kurta fit?");
    expect(row.status).toBe("scheduled");
    expect(Math.abs(new Date(row.sendAt).getTime() - Math.floor(at.getTime() / 60_000) * 60_000)).toBeLessThan(60_000);

    // a second one, then a change of mind
    await page.getByLabel("Reply").fill("Sale starts Friday");
    await page.getByLabel("Send later").check();
    await page.getByLabel("Send at").fill(local);
    await page.getByRole("button", { name: "Schedule", exact: true }).click();
    const item = page.locator(".msg.scheduled", { hasText: "Sale starts Friday" });
    await item.waitFor();
    await item.getByRole("button", { name: "Cancel scheduled message" }).click();
    await page.locator(".msg", { hasText: "Sale starts Friday" }).filter({ hasText: "cancelled" }).waitFor();
    const all = (await call(server.url, "GET", `/api/v1/inbox/conversations/${ashaConv}/messages`, undefined, owner)).body.data;
    expect(all.filter((m: { body: string | null }) => m.body === "Sale starts Friday").map((m: { status: string }) => m.status)).toEqual(["cancelled"]);
    expect(all.filter((m: { body: string | null }) => m.body === "Checking in: did the kurta fit?").map((m: { status: string }) => m.status)).toEqual(["scheduled"]);
    expect(problems).toEqual([]);
  }, 30_000);

  test("react to the customer's message", async () => {
    const msg = page.locator(".msg.inbound", { hasText: "Is the blue kurta back in stock?" });
    await msg.getByRole("button", { name: "React" }).click();
    await msg.getByRole("button", { name: "React 👍" }).click();
    await until(async () => readSimSent(dataDir).find((e) => e.to === ASHA && (e as { type?: string }).type === "reaction"), "the reaction on the network");
    await page.locator(".msg.reaction", { hasText: "👍" }).waitFor();
    expect(problems).toEqual([]);
  }, 30_000);

  test("the inbox at 1280 and 375 px: nothing serious for axe, no sideways scrolling; screenshots", async () => {
    await page.evaluate(() => window.scrollTo(0, 0));
    await shot(page, "inbox-thread-desktop");
    const p = await newPage(await browser.newContext({ viewport: PHONE }));
    await uiLogin(p.page, server.url, "priya.agent@example.com");
    expect(await scrollsSideways(p.page)).toBe(false);
    expect(await axe(p.page)).toEqual([]);
    await shot(p.page, "inbox-list-phone");
    await p.page.goto(`${server.url}/app/inbox/${ashaConv}`);
    await p.page.getByRole("heading", { name: "Asha" }).waitFor();
    await p.page.locator("li.note").waitFor();
    expect(await scrollsSideways(p.page)).toBe(false);
    expect(await axe(p.page)).toEqual([]);
    await shot(p.page, "inbox-thread-notes-phone");
    expect([...problems, ...p.problems]).toEqual([]);
    await p.page.context().close();
  }, 60_000);

  test("the home screen: the analytics as charts under the strict CSP, at 1280 and 375 px", async () => {
    await page.getByRole("link", { name: "Home" }).click();
    await page.getByRole("heading", { name: "Home" }).waitFor();
    await page.getByRole("img", { name: /Messages per day/ }).waitFor();
    // two messages came in today (Asha, Ravi)
    expect(await page.locator(".totals").textContent()).toContain("Received (30 days)2");
    expect(await page.locator(".chart rect.bar").count()).toBeGreaterThan(0);
    expect(await axe(page)).toEqual([]);
    await shot(page, "home-desktop");
    const p = await newPage(await browser.newContext({ viewport: PHONE }));
    await uiLogin(p.page, server.url, "priya.agent@example.com");
    await p.page.goto(`${server.url}/app/home`);
    await p.page.getByRole("img", { name: /Messages per day/ }).waitFor();
    expect(await scrollsSideways(p.page)).toBe(false);
    expect(await axe(p.page)).toEqual([]);
    await shot(p.page, "home-phone");
    expect([...problems, ...p.problems]).toEqual([]);
    await p.page.context().close();
  }, 60_000);
});
