import { z } from "zod";
import { docSchema } from "../../http/openapi.ts";
import { ROLES } from "../users/roles.ts";

// Response `data` shapes of the /api/auth routes, for the OpenAPI document only (the answers are
// built by the services); made when the document is first asked for (docSchema).

const seconds = () => z.number().int().describe("seconds");

export const captchaDoc = docSchema(() =>
  z.object({ captchaId: z.string(), challenge: z.string().describe("PNG data URI of the 5 characters to type"), expiresIn: seconds() }),
);

export const registrationDoc = docSchema(() =>
  z.object({
    requiresVerification: z.literal(true),
    registrationToken: z.string().describe("send as `Authorization: Bearer <registrationToken>` (or in the body) to the verification routes"),
    nextStep: z.enum(["mobile", "email", "done"]),
    phoneMasked: z.string().nullable(),
    emailMasked: z.string(),
  }),
);

export const codeSentToPhoneDoc = docSchema(() => z.object({ phoneMasked: z.string().nullable(), expiresIn: seconds() }));
export const codeSentToEmailDoc = docSchema(() => z.object({ emailMasked: z.string(), expiresIn: seconds() }));
export const mobileVerifiedDoc = docSchema(() => z.object({ nextStep: z.enum(["email", "done"]), emailMasked: z.string() }));
export const emailVerifiedDoc = docSchema(() => z.object({ verified: z.literal(true), nextStep: z.literal("done") }));

const tokenPair = () =>
  z.object({
    accessToken: z.string().describe("JWT for `Authorization: Bearer`"),
    refreshToken: z.string(),
    expiresIn: z.string().describe("lifetime of the access token, e.g. 15m"),
  });

export const tokenPairDoc = docSchema(tokenPair);

/** A password login answers tokens, or a second-factor challenge. */
export const loginDoc = docSchema(() =>
  z.union([
    tokenPair().extend({ user: z.object({ id: z.uuid(), email: z.string(), role: z.enum(ROLES) }) }),
    z.object({
      requiresOtp: z.literal(true),
      loginChallengeToken: z.string(),
      phoneMasked: z.string().nullable(),
      expiresIn: seconds(),
      codeSent: z.literal(false).optional().describe("present only when the send limits held the code back"),
      retryAfter: seconds().optional().describe("seconds until login/send-otp may send a code"),
    }),
  ]),
);

export const twoFactorDoc = docSchema(() => z.object({ twoFactorEnabled: z.boolean() }));

export const profileDoc = docSchema(() =>
  z.object({
    id: z.uuid(),
    email: z.string(),
    name: z.string(),
    role: z.enum(ROLES),
    tenantId: z.uuid(),
    tenantName: z.string(),
    twoFactorEnabled: z.boolean(),
    mobileMasked: z.string().nullable(),
    mobileVerified: z.boolean(),
  }),
);

export const profileNameDoc = docSchema(() => z.object({ id: z.uuid(), name: z.string() }));
export const profileMobileDoc = docSchema(() => z.object({ phoneMasked: z.string().nullable(), mobileVerified: z.literal(true) }));
