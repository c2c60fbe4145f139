import { z } from "zod";
import { lazySchema } from "../../http/lazy-schema.ts";

export const createApiKeyBody = lazySchema(() =>
  z.object({
    name: z.string().trim().min(1).max(64),
    /** ISO 8601; must be in the future */
    expiresAt: z.iso.datetime({ offset: true }).optional(),
  }),
);
export type CreateApiKeyInput = z.infer<typeof createApiKeyBody>;

export const apiKeyParams = lazySchema(() => z.object({ id: z.uuid() }));

/** An API key as lists show it (never the key or its hash). */
export interface ApiKeyView {
  id: string;
  name: string;
  prefix: string;
  createdAt: string;
  lastUsedAt: string | null;
  expiresAt: string | null;
}
