import { expect, test } from "bun:test";
import { createTestApp } from "../helpers/app.ts";

test("register names a password mismatch together with the other field errors, not only after they are fixed", async () => {
  const t = await createTestApp();
  try {
    const r = await t.request("POST", "/api/auth/register", {
      body: { name: "A", email: "not-an-email", password: "Sturdy-pass-123", confirmPassword: "Sturdy-pass-124", tenantName: "Shop", mobile: "098000 00001" },
    });
    expect(r.status).toBe(400);
    expect(Object.keys(r.body.errors).sort()).toEqual(["confirmPassword", "email", "mobile", "name"]);
    expect(await t.deps.db.prepare("SELECT count(*) AS n FROM users").get()).toEqual({ n: 0 });
  } finally {
    await t.close();
  }
});
