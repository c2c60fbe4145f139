import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { PNG } from "pngjs";
import { imageCaptcha, renderCaptcha } from "../../../src/auth/captcha.ts";
import { CAPTCHA_ALPHABET } from "../../../src/auth/captcha-font.ts";
import { createAuthApp, newAccount, solveCaptcha, verifiedAccount, type AuthTestApp } from "./helpers.ts";

let t: AuthTestApp;
beforeAll(async () => {
  t = await createAuthApp({ config: { captcha: "image" } });
});
afterAll(() => t.close());

const decode = (dataUri: string) => {
  expect(dataUri).toStartWith("data:image/png;base64,");
  return PNG.sync.read(Buffer.from(dataUri.slice("data:image/png;base64,".length), "base64"));
};

describe("GET /api/auth/captcha", () => {
  test("a UUID and a PNG data URI that decodes to a real, non-blank image", async () => {
    const r = await t.request("GET", "/api/auth/captcha");
    expect(r.status).toBe(200);
    expect(r.body.data.captchaId).toMatch(/^[0-9a-f-]{36}$/);
    expect(r.body.data.expiresIn).toBe(300);
    const png = decode(r.body.data.challenge);
    expect(png.width).toBe(180);
    expect(png.height).toBe(64);
    // ink and background: many distinct colours, and a good share of dark pixels (the glyphs)
    const colours = new Set<number>();
    let dark = 0;
    for (let i = 0; i < png.data.length; i += 4) {
      colours.add((png.data[i]! << 16) | (png.data[i + 1]! << 8) | png.data[i + 2]!);
      if (png.data[i]! + png.data[i + 1]! + png.data[i + 2]! < 330) dark++;
    }
    expect(colours.size).toBeGreaterThan(500);
    expect(dark).toBeGreaterThan(600);
  });

  test("the answer is stored only as a keyed hash", async () => {
    const r = await t.request("GET", "/api/auth/captcha");
    const row = (await t.deps.db.prepare("SELECT * FROM captchas WHERE id = ?").get(r.body.data.captchaId)) as any;
    expect(row.answer_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(row)).not.toContain(t.captcha.last);
    expect(row.answer_hash).not.toBe(new Bun.CryptoHasher("sha256").update(t.captcha.last).digest("hex"));
  });

  test("the same text draws differently each time (noise and jitter)", () => {
    const a = Buffer.from(renderCaptcha("AB3K9"));
    const b = Buffer.from(renderCaptcha("AB3K9"));
    expect(a.equals(b)).toBe(false);
  });

  test("the default generator: 5 characters of the unambiguous alphabet", async () => {
    for (let i = 0; i < 20; i++) {
      const { answer, png } = await imageCaptcha.generate();
      expect(answer).toHaveLength(5);
      for (const ch of answer) expect(CAPTCHA_ALPHABET).toContain(ch);
      expect(PNG.sync.read(Buffer.from(png)).width).toBe(180);
    }
  });
});

describe("a captcha people can read", () => {
  test("no two characters people confuse; every two glyphs differ in at least 7 of 35 cells", async () => {
    const GLYPHS = (await import("../../../src/auth/captcha-font.ts")).fontGlyphs();
    for (const group of ["UV", "MAN", "HN", "0ODQ", "1IL", "2Z", "5S", "6G", "8B3", "PRF", "EF"]) {
      expect({ group, present: [...group].filter((c) => CAPTCHA_ALPHABET.includes(c)).length <= 1 }).toEqual({ group, present: true });
    }
    const cells = (c: string) => GLYPHS[c]!.flat();
    for (const a of CAPTCHA_ALPHABET)
      for (const b of CAPTCHA_ALPHABET) {
        if (a >= b) continue;
        const differ = cells(a).filter((v, i) => v !== cells(b)[i]).length;
        expect({ pair: a + b, atLeast7: differ >= 7 }).toEqual({ pair: a + b, atLeast7: true });
      }
  });

  test("large glyphs and light noise: the ink spans most of the height and stray dark pixels are rare", () => {
    for (let n = 0; n < 10; n++) {
      const png = PNG.sync.read(Buffer.from(renderCaptcha("HJ7KW")));
      const dark = (x: number, y: number) => {
        if (x < 0 || y < 0 || x >= png.width || y >= png.height) return false;
        const i = (y * png.width + x) * 4;
        return png.data[i]! + png.data[i + 1]! + png.data[i + 2]! < 300;
      };
      let rows = 0;
      let darkPixels = 0;
      let isolated = 0;
      for (let y = 0; y < png.height; y++) {
        let inRow = 0;
        for (let x = 0; x < png.width; x++) {
          if (!dark(x, y)) continue;
          inRow++;
          darkPixels++;
          if (!dark(x - 1, y) && !dark(x + 1, y) && !dark(x, y - 1) && !dark(x, y + 1)) isolated++;
        }
        if (inRow >= 3) rows++;
      }
      expect(rows).toBeGreaterThanOrEqual(44); // glyphs about 50 px tall in the 64 px image
      expect(isolated / darkPixels).toBeLessThan(0.01);
    }
  });
});

describe("captcha on register and login", () => {
  test("the right answer, in any case, passes", async () => {
    const c = await solveCaptcha(t);
    const r = await t.request("POST", "/api/auth/register", { body: { ...newAccount(), captchaId: c.captchaId, captchaAnswer: ` ${c.captchaAnswer.toLowerCase()} ` } });
    expect(r.status).toBe(201);
  });

  test("wrong: 400 errors.captchaAnswer, and the challenge is spent (the right answer then fails too)", async () => {
    const c = await solveCaptcha(t);
    const account = newAccount();
    const wrong = await t.request("POST", "/api/auth/register", { body: { ...account, captchaId: c.captchaId, captchaAnswer: "ZZZZZ" === c.captchaAnswer ? "YYYYY" : "ZZZZZ" } });
    expect(wrong.status).toBe(400);
    expect(wrong.body.code).toBe("VALIDATION_ERROR");
    expect(Object.keys(wrong.body.errors)).toEqual(["captchaAnswer"]);
    const retry = await t.request("POST", "/api/auth/register", { body: { ...account, ...c } });
    expect(retry.status).toBe(400);
    expect(Object.keys(retry.body.errors)).toEqual(["captchaAnswer"]);
  });

  test("reused: the second use of a solved challenge is refused", async () => {
    const c = await solveCaptcha(t);
    expect((await t.request("POST", "/api/auth/register", { body: { ...newAccount(), ...c } })).status).toBe(201);
    const again = await t.request("POST", "/api/auth/register", { body: { ...newAccount(), ...c } });
    expect(again.status).toBe(400);
    expect(again.body.errors.captchaAnswer).toBeDefined();
  });

  test("expired after 5 minutes", async () => {
    const c = await solveCaptcha(t);
    t.clock.advance(5 * 60_000 + 1);
    const r = await t.request("POST", "/api/auth/register", { body: { ...newAccount(), ...c } });
    expect(r.status).toBe(400);
    expect(r.body.errors.captchaAnswer).toContain("expired");
  });

  test("missing captcha fields are named when captcha is on", async () => {
    const r = await t.request("POST", "/api/auth/login", { body: { email: "a@example.com", password: "whatever-123" } });
    expect(r.status).toBe(400);
    expect(Object.keys(r.body.errors).sort()).toEqual(["captchaAnswer", "captchaId"]);
  });

  test("login checks the captcha before the password", async () => {
    const a = await verifiedAccount(t);
    const c = await solveCaptcha(t);
    const r = await t.request("POST", "/api/auth/login", { body: { email: a.email, password: a.password, captchaId: c.captchaId, captchaAnswer: "nope" } });
    expect(r.status).toBe(400);
    expect(r.body.errors.captchaAnswer).toBeDefined();
    const ok = await t.request("POST", "/api/auth/login", { body: { email: a.email, password: a.password, ...(await solveCaptcha(t)) } });
    expect(ok.status).toBe(200);
  });
});

describe("captcha off", () => {
  test("register and login need no captcha fields", async () => {
    const off = await createAuthApp({ config: { captcha: "off" } });
    try {
      const a = await verifiedAccount(off);
      const r = await off.request("POST", "/api/auth/login", { body: { email: a.email, password: a.password } });
      expect(r.status).toBe(200);
    } finally {
      await off.close();
    }
  });
});
