import { eq } from "drizzle-orm";
import { pngDataUri } from "../../auth/captcha.ts";
import { hmacHex, sameHex } from "../../crypto/hash.ts";
import { errors } from "../../errors.ts";
import { nowMs, type AuthKit } from "./kit.ts";
import { captchas } from "./table.ts";

export const CAPTCHA_TTL_SECONDS = 5 * 60;

function answerHash(kit: AuthKit, id: string, answer: string): string {
  return hmacHex(kit.deps.secrets.jwtSecret, `captcha:${id}:${answer.trim().toUpperCase()}`);
}

/** GET /api/auth/captcha: a new one-time challenge (docs/authentication.md). */
export async function issueCaptcha(kit: AuthKit): Promise<{ captchaId: string; challenge: string; expiresIn: number }> {
  const { answer, png } = await kit.deps.captcha.generate();
  const id = Bun.randomUUIDv7();
  const now = nowMs(kit);
  await kit.deps.db
    .insert(captchas)
    .values({ id, answerHash: answerHash(kit, id, answer), expiresAt: now + CAPTCHA_TTL_SECONDS * 1000, createdAt: now })
    .run();
  return { captchaId: id, challenge: pngDataUri(png), expiresIn: CAPTCHA_TTL_SECONDS };
}

/**
 * Checks and consumes a challenge when the operator's captcha is on. Any answer, right or
 * wrong, consumes it; wrong, expired or reused: 400 with `errors.captchaAnswer`.
 */
export async function checkCaptcha(kit: AuthKit, captchaId: string | undefined, answer: string | undefined): Promise<void> {
  if (kit.deps.config.captcha === "off") return;
  // one statement takes the row: of parallel answers to one challenge only one finds it
  const row = captchaId ? await kit.deps.db.delete(captchas).where(eq(captchas.id, captchaId)).returning().get() : undefined;
  if (!row || row.expiresAt <= nowMs(kit)) {
    throw errors.validation({ captchaAnswer: "the captcha has expired or was already used; get a new one" }, "Captcha expired");
  }
  if (!answer || !sameHex(row.answerHash, answerHash(kit, row.id, answer))) {
    throw errors.validation({ captchaAnswer: "is incorrect; get a new captcha" }, "Wrong captcha answer");
  }
}
