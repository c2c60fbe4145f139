import { z } from "zod";
import { phoneNumber } from "../sessions/model.ts";
import { lazySchema } from "../../http/lazy-schema.ts";

export const scanBody = lazySchema(() => z.object({ phoneNumber }));

export const inboundBody = lazySchema(() =>
  z
    .object({
      from: phoneNumber,
      /** the sender's profile name */
      pushName: z.string().trim().min(1).max(100, "must be at most 100 characters").optional(),
      /** a group the session is in (POST /api/sim/sessions/{id}/groups): `from` writes in it */
      groupId: z.string().max(64).optional(),
      type: z.enum(["text", "image", "document", "audio", "video"]).default("text"),
      text: z.string().max(65_536, "must be at most 65536 characters").optional(),
      mediaUrl: z.url("must be a URL").optional(),
    })
    .refine((b) => b.type !== "text" || (b.text !== undefined && b.text.length > 0), { path: ["text"], message: "is required for a text message" })
    .refine((b) => b.type === "text" || b.mediaUrl !== undefined, { path: ["mediaUrl"], message: "is required for a media message" }),
);

export const receiptBody = lazySchema(() =>
  z.object({
    messageId: z.string().trim().min(1, "is required").max(200),
    status: z.enum(["delivered", "read"]),
  }),
);

/** The body is optional: an empty POST is a plain logout. */
export const logoutBody = lazySchema(() =>
  z.preprocess(
    (v) => (v === undefined || v === null || v === "" ? {} : v),
    z.object({ reason: z.enum(["logged_out", "replaced", "banned"]).default("logged_out") }),
  ),
);

export const failBody = lazySchema(() =>
  z.object({
    count: z.number().int().min(1).max(10_000),
    code: z.string().trim().min(1).max(64).regex(/^[a-z0-9_]+$/, "must be lower-case letters, digits and underscores").optional(),
  }),
);

/** POST /api/sim/absent: numbers that are not on the sim network (every other number is). */
export const absentBody = lazySchema(() =>
  z.object({ phones: z.array(phoneNumber, { error: "must be a list of phone numbers" }).min(1, "must name at least one number").max(10_000, "must name at most 10000 numbers") }),
);
