// The dashboard in real Chromium against a real server on the sim network (docs/dashboard.md): sign up, log in,
// pair by QR, a live inbox and a reply, webhooks, team, and a viewer who is offered less.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser, BrowserContext, Page } from "playwright-core";
import type { ChildServer } from "../helpers/process.ts";
import { axe, CHROMIUM, DESKTOP, launch, newPage, outboxBody, outboxCode, PHONE, scrollsSideways, shot, splitWordsInTables } from "./browser.ts";
import { call, login, PASSWORD, startServer, uiLogin } from "./setup.ts";
import { expectViewerView } from "./viewer.ts";

const OWNER = { name: "Asha Owner", email: "asha@example.com", mobile: "919811100001", business: "Asha Sweets" };
const VIEWER = "vikram.viewer@example.com";
const CUSTOMER = "919833300003";

describe.skipIf(!CHROMIUM)("dashboard in Chromium", () => {
  let server: ChildServer;
  let dataDir: string;
  let base: string;
  let browser: Browser;
  let ctx: BrowserContext;
  let page: Page;
  let problems: string[];
  let token: string;
  let sessionId: string;

  beforeAll(async () => {
    ({ server, dataDir } = await startServer());
    base = server.url;
    browser = await launch();
    ctx = await browser.newContext({ viewport: DESKTOP });
    ({ page, problems } = await newPage(ctx));
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  const noProblems = () => expect(problems).toEqual([]);

  test("GET / leads to the dashboard, served under a strict CSP; the API is not shadowed", async () => {
    const res = await fetch(`${base}/app/inbox`);
    const csp = res.headers.get("content-security-policy") ?? "";
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain("unsafe-inline");
    expect(csp).toContain(`ws://${new URL(base).host}`);
    expect(await res.text()).toContain('<script type="module" src="/app/assets/app.js');
    expect((await fetch(`${base}/app/nowhere/deep`)).headers.get("content-type")).toContain("text/html");
    expect((await fetch(`${base}/api/nowhere`)).status).toBe(404);
    expect((await fetch(`${base}/health`)).headers.get("content-type")).toContain("json");
    await page.goto(base + "/");
    await page.getByRole("heading", { name: "Sign in to Parley" }).waitFor();
    expect(new URL(page.url()).pathname).toBe("/app/login");
  }, 30_000);

  test("sign up through the screens (no captcha shown: it is off here), then the mobile code, then the email code", async () => {
    await page.getByRole("link", { name: "Create a workspace" }).click();
    await page.getByLabel("Your name").waitFor();
    await page.getByLabel("Your name").fill(OWNER.name);
    await page.getByLabel("Business name").fill(OWNER.business);
    await page.getByLabel("Email").fill(OWNER.email);
    await page.getByLabel("Mobile number").fill(OWNER.mobile);
    await page.getByLabel("Password", { exact: true }).fill("short");
    await page.getByLabel("Password again").fill("short");
    await page.getByRole("button", { name: "Create workspace" }).click();
    // the API's field error is shown beside the field it names
    await page.locator(".field.invalid", { hasText: "Password" }).first().waitFor();
    expect(await axe(page)).toEqual([]);
    await shot(page, "signup-desktop");
    await page.getByLabel("Password", { exact: true }).fill(PASSWORD);
    await page.getByLabel("Password again").fill(PASSWORD);
    expect(await page.getByRole("img", { name: /Captcha/ }).count()).toBe(0);
    await page.getByRole("button", { name: "Create workspace" }).click();
    await page.getByText(/We sent a 6-digit code to 91/).waitFor();
    // a second code within 60 s: 429, and the screen says when to retry (Retry-After)
    await page.getByRole("button", { name: "Send a new code" }).click();
    await page.getByRole("alert").getByText(/Too many attempts\. Try again in \d+ seconds\./).waitFor();
    await page.getByLabel("Code sent to your mobile number").fill(outboxCode(dataDir, OWNER.mobile));
    await page.getByRole("button", { name: "Verify" }).click();
    await page.getByText(/We sent a 6-digit code to a/).waitFor();
    await page.getByLabel("Code sent to your email").fill(outboxCode(dataDir, OWNER.email));
    await page.getByRole("button", { name: "Verify" }).click();
    await page.getByRole("heading", { name: "You are all set" }).waitFor();
    await page.getByRole("button", { name: "Sign in" }).click();
    await uiLogin(page, base, OWNER.email);
    token = await login(base, OWNER.email);
    noProblems();
  }, 60_000);

  test("a session paired by QR: the QR redraws as it rotates and turns into connected without a reload", async () => {
    await page.getByRole("link", { name: "Sessions" }).click();
    await page.getByLabel("New session name").fill("Front desk");
    await page.getByRole("button", { name: "Create session" }).click();
    await page.getByRole("button", { name: "Connect Front desk" }).click();
    const qr = page.getByRole("img", { name: /QR code to link Front desk/ });
    await qr.waitFor();
    const first = await qr.getAttribute("src");
    expect(first).toStartWith("data:image/png;base64,");
    // the sim rotates the QR every 1.5 s; the picture follows the session_qr events
    await page.waitForFunction((src) => document.querySelector("img[alt^='QR code']")?.getAttribute("src") !== src, first, { timeout: 10_000 });
    await shot(page, "sessions-qr-desktop");
    await page.getByLabel("Or link with the phone number").fill("919822200002");
    await page.getByRole("button", { name: "Get pairing code" }).click();
    expect(await page.locator("strong.code").textContent()).toMatch(/^[A-Z0-9-]{8,9}$/);
    sessionId = (await call(base, "GET", "/api/v1/chatapp", undefined, token)).body.data[0].id;
    const scan = await call(base, "POST", `/api/sim/sessions/${sessionId}/scan`, { phoneNumber: "919822200002" }, token);
    expect(scan.status).toBe(200);
    await page.getByText("as +919822200002").waitFor();
    expect(await page.getByTestId("session-status").textContent()).toBe("Connected");
    expect(await qr.count()).toBe(0);
    // with several sessions on the screen, each card's buttons say which session they act on
    expect(await page.getByRole("button", { name: "Disconnect Front desk", exact: true }).count()).toBe(1);
    // a destructive button by keyboard: the question takes the focus, and "Keep" gives it back
    const del = page.getByRole("button", { name: "Delete Front desk" });
    await del.focus();
    await page.keyboard.press("Enter");
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Yes, delete it");
    await page.keyboard.press("Tab");
    await page.keyboard.press("Enter");
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Delete Front desk");
    expect(await axe(page)).toEqual([]);
    await shot(page, "sessions-desktop");
    noProblems();
  }, 60_000);

  test("an inbound message arrives live in the inbox; the reply goes out from the thread", async () => {
    await page.getByRole("link", { name: "Inbox" }).click();
    await page.getByText("No conversations yet").waitFor();
    const r = await call(base, "POST", `/api/sim/sessions/${sessionId}/inbound`, { from: CUSTOMER, text: "Do you deliver on Sundays?" }, token);
    expect(r.status).toBe(200);
    const conv = page.getByRole("link", { name: /\+919833300003/ });
    await conv.waitFor();
    await page.getByLabel("1 unread").waitFor();
    await shot(page, "inbox-desktop");
    await conv.click();
    await page.locator(".msg", { hasText: "Do you deliver on Sundays?" }).waitFor();
    // opening the thread marks it read
    await page.getByLabel("1 unread").waitFor({ state: "detached" });
    await page.getByLabel("Reply").fill("Yes, from 9 to 1.");
    await page.getByRole("button", { name: "Send" }).click();
    await page.locator(".msg.outbound", { hasText: "Yes, from 9 to 1." }).waitFor();
    await page.locator(".msg.outbound", { hasText: /sent|delivered/ }).waitFor({ timeout: 15_000 });
    await page.getByLabel("Attachment").setInputFiles({ name: "price-list.txt", mimeType: "text/plain", buffer: Buffer.from("Ladoo 400/kg\n") });
    await page.getByLabel("Reply").fill("Our price list");
    await page.getByRole("button", { name: "Send" }).click();
    await page.locator(".msg.outbound", { hasText: "Our price list" }).getByRole("button", { name: /Download document price-list\.txt/ }).waitFor();
    const second = await call(base, "POST", `/api/sim/sessions/${sessionId}/inbound`, { from: CUSTOMER, text: "Great, thanks!" }, token);
    expect(second.status).toBe(200);
    await page.locator(".msg.inbound", { hasText: "Great, thanks!" }).waitFor();
    const sent = await call(base, "GET", `/api/v1/messages?direction=outbound`, undefined, token);
    expect(sent.body.data.map((m: { body: string }) => m.body)).toContain("Yes, from 9 to 1.");
    expect(await axe(page)).toEqual([]);
    await shot(page, "thread-desktop");
    noProblems();
  }, 60_000);

  test("a webhook's secret is shown once", async () => {
    await page.getByRole("link", { name: "Webhooks" }).click();
    await page.getByText("Add a webhook").click();
    await page.getByLabel("Webhook name").fill("Orders system");
    await page.getByLabel("URL (HTTPS)").fill("http://127.0.0.1:9/hook");
    await page.getByLabel("message_sent").check();
    await page.getByRole("button", { name: "Create webhook" }).click();
    const secret = page.getByTestId("secret");
    await secret.waitFor();
    expect(await secret.textContent()).toMatch(/^[0-9a-f]{64}$/);
    expect(await axe(page)).toEqual([]);
    await shot(page, "webhooks-secret-desktop");
    await page.getByRole("button", { name: "I have stored it" }).click();
    expect(await secret.count()).toBe(0);
    await page.getByRole("link", { name: "Orders system" }).click();
    await page.getByRole("heading", { name: "History" }).waitFor();
    expect(await page.getByTestId("secret").count()).toBe(0);
    await page.getByRole("button", { name: "Send a test event" }).click();
    await page.getByText(/Test not delivered/).waitFor({ timeout: 20_000 });
    await page.getByRole("cell", { name: /\(test\)/ }).first().waitFor();
    await page.getByRole("button", { name: /^Retry delivery message_/ }).first().click();
    // the manual retry is a second attempt of the same delivery
    await page.getByRole("row", { name: /\(test\)/ }).first().getByRole("cell", { name: "2", exact: true }).waitFor({ timeout: 20_000 });
    noProblems();
  }, 60_000);

  test("invite a viewer, who joins through the mail page (strict CSP) and finds management controls absent", async () => {
    await page.getByRole("link", { name: "Team" }).click();
    await page.getByLabel("Email to invite").fill(VIEWER);
    await page.getByLabel("Role", { exact: true }).selectOption("viewer");
    await page.getByRole("button", { name: "Send invitation" }).click();
    await page.getByText(`Invitation sent to ${VIEWER}`).waitFor();
    await page.getByText(`${VIEWER}`, { exact: true }).waitFor();
    expect(await axe(page)).toEqual([]);
    await shot(page, "team-desktop");
    noProblems();

    const link = outboxBody(dataDir, VIEWER).match(/https?:\/\/\S+accept-invitation\?token=[\w-]+/)?.[0];
    expect(link).toBeDefined();
    const viewerCtx = await browser.newContext({ viewport: PHONE });
    const v = await newPage(viewerCtx);
    // the server runs on --port 0: the link in the mail names the port it really listens on
    const u = new URL(link!);
    expect(u.origin).toBe(new URL(base).origin);
    await v.page.goto(link!);
    expect(await v.page.evaluate(() => getComputedStyle(document.body).maxWidth)).toBe("420px"); // the external stylesheet applies
    await v.page.getByLabel("Your name").fill("Vikram Viewer");
    await v.page.getByLabel("Password", { exact: true }).fill(PASSWORD);
    await v.page.getByLabel("Password again").fill(PASSWORD);
    await v.page.getByRole("button", { name: "Join the workspace" }).click();
    await v.page.getByText("You joined the workspace").waitFor();

    await uiLogin(v.page, base, VIEWER);
    await expectViewerView(v.page, base);
    expect(await axe(v.page)).toEqual([]);
    expect(await scrollsSideways(v.page)).toBe(false);
    expect(v.problems).toEqual([]);
    await viewerCtx.close();
  }, 90_000);

  test("team roles and removal, an API key shown once and revoked, the profile name", async () => {
    await page.goto(`${base}/app/team`);
    const role = page.getByLabel("Role of Vikram Viewer");
    await role.selectOption("agent");
    await page.waitForFunction(() => (document.querySelector("select[name=role]") as HTMLSelectElement | null)?.value === "agent");
    const members = await call(base, "GET", "/api/team/members", undefined, token);
    expect(members.body.data.find((m: { email: string }) => m.email === VIEWER).role).toBe("agent");
    await page.getByRole("button", { name: "Remove Vikram Viewer" }).click();
    await page.getByRole("button", { name: "Yes, remove" }).click();
    await page.getByRole("cell", { name: "Vikram Viewer", exact: true }).waitFor({ state: "detached" });

    await page.getByRole("link", { name: "API keys" }).click();
    await page.getByLabel("Key name").fill("Shop backend");
    await page.getByRole("button", { name: "Create key" }).click();
    expect(await page.getByTestId("secret").textContent()).toMatch(/^pk_[A-Za-z0-9]{32,}$/);
    await page.getByRole("button", { name: "I have stored it" }).click();
    await page.getByRole("heading", { name: "Shop backend" }).waitFor();
    expect(await page.getByTestId("secret").count()).toBe(0);
    await page.getByRole("button", { name: "Revoke Shop backend" }).click();
    await page.getByRole("button", { name: "Yes, revoke" }).click();
    await page.getByRole("heading", { name: "Shop backend" }).waitFor({ state: "detached" });

    await page.getByRole("link", { name: "Profile" }).click();
    await page.getByLabel("Your name").fill("Asha O.");
    await page.getByRole("button", { name: "Save name" }).click();
    await page.getByText("Saved.").waitFor();
    await page.locator(".who", { hasText: "Asha O." }).waitFor();
    noProblems();
  }, 60_000);

  test("a reply on a session that is not connected says so (502)", async () => {
    await page.goto(`${base}/app/sessions`);
    await page.getByRole("button", { name: "Disconnect" }).click();
    await page.getByTestId("session-status").getByText("Disconnected").waitFor();
    await page.getByRole("link", { name: "Inbox" }).click();
    await page.getByRole("link", { name: /\+919833300003/ }).click();
    await page.getByLabel("Reply").fill("Are you there?");
    await page.getByRole("button", { name: "Send" }).click();
    await page.getByRole("alert").getByText(/The session is not connected/).waitFor();
    noProblems();
  }, 30_000);

  test("every main screen at 375 px: no sideways scrolling, no serious accessibility violation; screenshots", async () => {
    const phone = await browser.newContext({ viewport: PHONE });
    const p = await newPage(phone);
    await uiLogin(p.page, base, OWNER.email);
    const screens = ["inbox", "sessions", "contacts", "segments", "campaigns", "campaigns/new", "automations", "webhooks", "team", "api-keys", "billing", "profile"];
    for (const s of screens) {
      await p.page.goto(`${base}/app/${s}`);
      await p.page.locator("main h1").first().waitFor();
      await p.page.waitForLoadState("networkidle");
      expect({ s, sideways: await scrollsSideways(p.page) }).toEqual({ s, sideways: false });
      expect({ s, axe: await axe(p.page) }).toEqual({ s, axe: [] });
      expect({ s, split: await splitWordsInTables(p.page) }).toEqual({ s, split: [] });
      await shot(p.page, `${s.replace("/", "-")}-phone`);
      await page.goto(`${base}/app/${s}`);
      await page.locator("main h1").first().waitFor();
      await page.waitForLoadState("networkidle");
      await shot(page, `${s.replace("/", "-")}-desktop`);
    }
    // a table of many columns (the delivery history) scrolls in its frame; its words stay whole
    await p.page.goto(`${base}/app/webhooks`);
    await p.page.getByRole("link", { name: "Orders system" }).click();
    await p.page.getByRole("heading", { name: "History" }).waitFor();
    expect(await scrollsSideways(p.page)).toBe(false);
    expect(await splitWordsInTables(p.page)).toEqual([]);
    expect(await axe(p.page)).toEqual([]);
    await shot(p.page, "webhook-phone");
    await p.page.goto(`${base}/app/inbox`);
    await p.page.getByRole("link", { name: /\+919833300003/ }).click();
    await p.page.locator(".msg", { hasText: "Great, thanks!" }).waitFor();
    expect(await scrollsSideways(p.page)).toBe(false);
    await shot(p.page, "thread-phone");
    expect(p.problems).toEqual([]);
    await phone.close();
    noProblems();
  }, 120_000);

  test("forgot password from the log-in screen; the mail's reset page (strict CSP) sets the new one", async () => {
    const ctx2 = await browser.newContext({ viewport: PHONE });
    const p = await newPage(ctx2);
    await p.page.goto(`${base}/app/login`);
    await p.page.getByRole("link", { name: "Forgot your password?" }).click();
    await p.page.getByLabel("Email").fill(OWNER.email);
    await p.page.getByRole("button", { name: "Send the link" }).click();
    await p.page.getByText(`If an account uses ${OWNER.email}`).waitFor();
    expect(await axe(p.page)).toEqual([]);
    let link: string | undefined;
    for (let i = 0; i < 50 && !link; i++) {
      link = outboxBody(dataDir, OWNER.email).match(/https?:\/\/\S+reset-password\?token=[\w-]+/)?.[0];
      if (!link) await Bun.sleep(100); // the mail goes out after the answer
    }
    const u = new URL(link!);
    await p.page.goto(base + u.pathname + u.search);
    await p.page.getByLabel("New password", { exact: true }).fill("Another-good-password-7");
    await p.page.getByLabel("New password again").fill("Another-good-password-7");
    await p.page.getByRole("button", { name: "Set a new password" }).click();
    await p.page.getByText("Your password is changed").waitFor();
    await uiLogin(p.page, base, OWNER.email, "Another-good-password-7");
    expect(p.problems).toEqual([]);
    await ctx2.close();
  }, 60_000);
});
