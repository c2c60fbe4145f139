import { afterAll, beforeAll, expect, test } from "bun:test";
import { Window } from "happy-dom";
import { createTestApp, type TestApp } from "../../helpers/app.ts";
import { createWorkspace, type TestWorkspace } from "../../helpers/fixtures.ts";
import { RecordingNotifier } from "../../helpers/notifier.ts";

// The pages behind the links in mail, driven like a person would: a DOM loads the page from a
// real server, runs its script, fills the form and submits it to the real API.
let t: TestApp;
let ws: TestWorkspace;
let base: string;
const mailbox = new RecordingNotifier();

beforeAll(async () => {
  t = await createTestApp({ overrides: { notifier: mailbox }, config: { authRateLimitPerMinute: 1000 } });
  t.app.listen({ port: 0, hostname: "127.0.0.1" });
  base = `http://127.0.0.1:${t.app.server!.port}`;
  ws = await createWorkspace(t);
});
const windows: Window[] = [];
afterAll(async () => {
  for (const w of windows) await w.happyDOM.close();
  await t.app.stop();
  await t.close();
});

/** Opens `url` in a DOM with JavaScript on and returns its window once the page script ran. */
async function open(url: string): Promise<Window> {
  const html = await (await fetch(url)).text();
  const window = new Window({ url, settings: { enableJavaScriptEvaluation: true, suppressInsecureJavaScriptEnvironmentWarning: true } });
  windows.push(window);
  window.document.write(html); // the page's script is deferred: fetched without blocking this process
  await window.happyDOM.waitUntilComplete();
  return window;
}

async function submit(window: Window, values: Record<string, string>): Promise<string> {
  const doc = window.document;
  for (const [name, value] of Object.entries(values)) (doc.querySelector(`input[name="${name}"]`) as unknown as { value: string }).value = value;
  doc.querySelector("form")!.dispatchEvent(new window.Event("submit", { cancelable: true }));
  const result = doc.getElementById("result")!;
  for (let i = 0; i < 200 && /^(|Sending…)$/.test(result.textContent ?? ""); i++) await Bun.sleep(10);
  return result.textContent ?? "";
}

const linkIn = (text: string, path: string) => text.match(new RegExp(`https?://\\S+/${path}\\?token=[^\\s"<]+`))![0];

test("the reset-password link from the mail sets a new password through its page", async () => {
  const r = await t.request("POST", "/api/auth/forgot-password", { body: { email: ws.owner.email } });
  expect(r.status).toBe(200);
  for (let i = 0; i < 100 && !mailbox.emails.some((m) => m.kind === "reset"); i++) await Bun.sleep(10);
  const mail = mailbox.emails.find((m) => m.kind === "reset")!;
  const link = linkIn(mail.text, "reset-password").replace(/^https?:\/\/[^/]+/, base);

  const page = await open(link);
  expect(page.document.querySelector("h1")!.textContent).toBe("Set a new password");
  expect(await submit(page, { password: "short", confirm: "other" })).toBe("The two passwords differ.");
  expect(await submit(page, { password: "a new long passphrase 7", confirm: "a new long passphrase 7" })).toContain("Your password is changed");

  const login = await t.request("POST", "/api/auth/login", { body: { email: ws.owner.email, password: "a new long passphrase 7" } });
  expect(login.status).toBe(200);
  // the link works once: the same page now shows the API's refusal
  const again = await open(link);
  expect(await submit(again, { password: "yet another passphrase 8", confirm: "yet another passphrase 8" })).toMatch(/token/i);
});

test("the invitation link from the mail creates the member through its page", async () => {
  const invited = `invitee-${Date.now()}@example.com`;
  const r = await t.request("POST", "/api/team/invitations", { token: ws.owner.token, body: { email: invited, role: "agent" } });
  expect(r.status).toBe(201);
  const mail = mailbox.emails.find((m) => m.to === invited)!;
  const link = linkIn(mail.text, "accept-invitation").replace(/^https?:\/\/[^/]+/, base);

  const page = await open(link);
  expect(page.document.querySelector("h1")!.textContent).toBe("Join the workspace");
  expect(await submit(page, { name: "Ravi Kumar", mobile: "12345678", password: "join me please 12", confirm: "join me please 12" })).toContain("mobile");
  expect(await submit(page, { name: "Ravi Kumar", mobile: "", password: "join me please 12", confirm: "join me please 12" })).toContain("You joined");
  const members = await t.request("GET", "/api/team/members", { token: ws.owner.token });
  expect(members.body.data.map((m: { email: string }) => m.email)).toContain(invited);
});

test("pages load nothing from elsewhere and say so in their CSP; without a token they explain", async () => {
  for (const path of ["/reset-password", "/accept-invitation"]) {
    const res = await fetch(base + path);
    const html = await res.text();
    expect(res.headers.get("content-security-policy")).toContain("default-src 'none'");
    expect(html).not.toMatch(/(src|href)="https?:/);
    const page = await open(base + path);
    expect(page.document.getElementById("result")!.textContent).toContain("no token");
  }
});
