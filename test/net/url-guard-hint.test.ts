import { expect, test } from "bun:test";
import { assertSafeUrl, UrlGuardError } from "../../src/net/url-guard.ts";
import { createTestApp } from "../helpers/app.ts";
import { createWorkspace } from "../helpers/fixtures.ts";
import { connectedSession } from "../modules/messages/helpers.ts";

const refusal = async (url: string, opts: { allowHttp: boolean; allowPrivate: boolean }) => {
  try {
    await assertSafeUrl(url, opts);
  } catch (err) {
    if (err instanceof UrlGuardError) return err.message;
    throw err;
  }
  throw new Error(`${url} was accepted`);
};

test("a loopback or private receiver refusal names the setting that allows it", async () => {
  for (const url of ["https://127.0.0.1/hook", "https://192.168.1.10/hook", "https://[::1]/hook"]) {
    const m = await refusal(url, { allowHttp: false, allowPrivate: false });
    expect(m).toContain("PARLEY_WEBHOOK_ALLOW_PRIVATE=true");
    expect(m).toContain("--webhook-allow-private");
  }
});

test("a plain http refusal names the setting that allows http", async () => {
  const m = await refusal("http://example.com/hook", { allowHttp: false, allowPrivate: false });
  expect(m).toContain("PARLEY_WEBHOOK_ALLOW_HTTP=true");
  expect(m).toContain("--webhook-allow-http");
});

test("addresses no setting allows get no hint", async () => {
  const m = await refusal("https://224.0.0.1/hook", { allowHttp: false, allowPrivate: false });
  expect(m).not.toContain("PARLEY_");
  const ftp = await refusal("ftp://example.com/x", { allowHttp: false, allowPrivate: false });
  expect(ftp).not.toContain("PARLEY_");
});

test("the webhook API shows the hint in errors.url", async () => {
  const t = await createTestApp();
  try {
    const ws = await createWorkspace(t);
    await connectedSession(t, ws);
    const r = await t.request("POST", "/api/webhooks", {
      token: ws.owner.token,
      body: { name: "local", url: "https://127.0.0.1:9/hook", events: ["message_received"] },
    });
    expect(r.status).toBe(400);
    expect(r.body.code).toBe("VALIDATION_ERROR");
    expect(r.body.errors.url).toContain("PARLEY_WEBHOOK_ALLOW_PRIVATE=true");
  } finally {
    t.close();
  }
});
