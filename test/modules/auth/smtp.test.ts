import { afterAll, beforeAll, expect, test } from "bun:test";
import { mimeParts, startSmtpServer } from "../../notify/smtp-server.ts";
import { createAuthApp, lastCode, registered, type AuthTestApp } from "./helpers.ts";

let t: AuthTestApp;
let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
beforeAll(async () => {
  smtp = await startSmtpServer();
  t = await createAuthApp({ config: { smtpUrl: smtp.url, publicUrl: "https://chat.example.org/app" } });
});
afterAll(async () => {
  await t.close();
  await smtp.close();
});

test("the email verification code arrives at a real SMTP server and verifies the account", async () => {
  const a = await registered(t);
  const token = a.registrationToken;
  await t.request("POST", "/api/auth/mobile/send-otp", { token });
  await t.request("POST", "/api/auth/mobile/verify-otp", { token, body: { otpCode: await lastCode(t, a.mobile) } });
  const sent = await t.request("POST", "/api/auth/email/send-verification-code", { token });
  expect(sent.status).toBe(200);

  expect(smtp.mails).toHaveLength(1);
  const received = smtp.mails[0]!;
  expect(received.to).toEqual([a.email]);
  const parts = mimeParts(received.raw);
  const code = parts["text/plain"]?.match(/verification code is: (\d{6})/)?.[1];
  expect(code).toMatch(/^\d{6}$/);
  expect(parts["text/html"]).toContain(code!);
  expect(parts["text/plain"]).toContain("Enter it in the app where you signed up");
  // over SMTP the code is not kept anywhere in clear text
  expect(JSON.stringify((await t.deps.db.prepare("SELECT * FROM notifications").all()))).not.toContain(code!);

  const verified = await t.request("POST", "/api/auth/email/verify", { token, body: { code } });
  expect(verified.status).toBe(200);
  expect(verified.body.data).toEqual({ nextStep: "done", verified: true });

  // links in mail are built from the configured public URL
  expect((await t.request("POST", "/api/auth/forgot-password", { body: { email: a.email } })).status).toBe(200);
  for (let i = 0; i < 100 && smtp.mails.length < 2; i++) await Bun.sleep(10);
  const reset = mimeParts(smtp.mails[1]!.raw);
  expect(reset["text/plain"]).toMatch(/https:\/\/chat\.example\.org\/app\/reset-password\?token=[A-Za-z0-9_-]{40,}/);
  expect(reset["text/html"]).toContain("https://chat.example.org/app/reset-password?token=");
});

test("when the mail server is down: 500 INTERNAL_ERROR, the code is dropped, a retry is not held by the cooldown", async () => {
  const down = await createAuthApp({ config: { smtpUrl: "smtp://127.0.0.1:1" } });
  try {
    const a = await registered(down);
    const token = a.registrationToken;
    await down.request("POST", "/api/auth/mobile/send-otp", { token });
    await down.request("POST", "/api/auth/mobile/verify-otp", { token, body: { otpCode: await lastCode(down, a.mobile) } });
    for (let i = 0; i < 2; i++) {
      const r = await down.request("POST", "/api/auth/email/send-verification-code", { token });
      expect(r.status).toBe(500);
      expect(r.body.code).toBe("INTERNAL_ERROR");
      expect(r.body.message).toContain("email");
    }
    expect((await down.deps.db.prepare("SELECT count(*) AS n FROM otp_codes WHERE destination = ?").get(a.email))).toEqual({ n: 0 });
    const failed = (await down.deps.db.prepare("SELECT status FROM notifications WHERE recipient = ?").all(a.email));
    expect(failed).toEqual([{ status: "failed" }, { status: "failed" }]);
  } finally {
    await down.close();
  }
});
