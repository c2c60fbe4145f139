// Group chats in the dashboard, in real Chromium (docs/groups.md): the session's setting, a group
// conversation named for the group with each message's sender, and a reply that goes to the group.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser, Page } from "playwright-core";
import type { ChildServer } from "../helpers/process.ts";
import { readSimSent } from "../helpers/sim-sent.ts";
import { axe, CHROMIUM, DESKTOP, launch, newPage, shot } from "./browser.ts";
import { call, connectedSession, ownerByApi, startServer, uiLogin } from "./setup.ts";

describe.skipIf(!CHROMIUM)("group chats in Chromium", () => {
  let server: ChildServer;
  let dataDir: string;
  let browser: Browser;
  let page: Page;
  let problems: string[];
  let token: string;
  let sessionId: string;

  beforeAll(async () => {
    ({ server, dataDir } = await startServer());
    token = await ownerByApi(server.url, dataDir, "groups@example.com", "919811100088");
    sessionId = await connectedSession(server.url, token, "Shop phone", "919822200088");
    browser = await launch();
    ({ page, problems } = await newPage(await browser.newContext({ viewport: DESKTOP })));
    await uiLogin(page, server.url, "groups@example.com");
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  test("the session's groups setting is switched on from the sessions screen", async () => {
    await page.getByRole("link", { name: "Sessions" }).click();
    const box = page.getByRole("checkbox", { name: /Keep group chats/ });
    expect(await box.isChecked()).toBe(false);
    // the box follows the saved setting: checked once the server answered and the list reloaded
    await box.click();
    await page.getByRole("checkbox", { name: /Keep group chats/, checked: true }).waitFor();
    for (let i = 0; i < 100; i++) {
      if ((await call(server.url, "GET", `/api/v1/chatapp/${sessionId}`, undefined, token)).body.data.settings.groups) break;
      await Bun.sleep(50);
    }
    expect((await call(server.url, "GET", `/api/v1/chatapp/${sessionId}`, undefined, token)).body.data.settings).toEqual({ groups: true });
    expect(problems).toEqual([]);
  }, 30_000);

  test("a group's conversation shows the group's name and each sender; a reply goes to the group", async () => {
    const members = ["919811100101", "919811100102", "919811100103"];
    const group = (await call(server.url, "POST", `/api/sim/sessions/${sessionId}/groups`, { name: "Family orders", participants: members }, token)).body.data;
    const names = ["Meena", "Ravi", "Sita"];
    for (let i = 0; i < 3; i++) {
      const r = await call(server.url, "POST", `/api/sim/sessions/${sessionId}/inbound`, { groupId: group.id, from: members[i], pushName: names[i], text: `order ${i + 1}` }, token);
      expect(r.status).toBe(200);
    }
    await page.getByRole("link", { name: "Inbox" }).click();
    await page.getByRole("link", { name: /Family orders/ }).click();
    await page.getByRole("heading", { name: "Family orders" }).waitFor();
    const thread = page.getByRole("list", { name: "Messages" });
    for (let i = 0; i < 3; i++) await thread.getByText(names[i]!, { exact: true }).waitFor();
    await page.getByText("Group chat · 3 members").waitFor();
    expect(await axe(page)).toEqual([]);
    await shot(page, "inbox-group-desktop");

    await page.getByLabel("Reply").fill("All three orders are packed");
    await page.getByRole("button", { name: "Send" }).click();
    let sent: ReturnType<typeof readSimSent> = [];
    for (let i = 0; i < 200 && !sent.length; i++) {
      sent = readSimSent(dataDir).filter((e) => e.to === group.id);
      if (!sent.length) await Bun.sleep(50);
    }
    expect(sent.map((e) => e.text)).toEqual(["All three orders are packed"]);
    expect(problems).toEqual([]);
  }, 60_000);
});
