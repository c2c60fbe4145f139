import { z } from "zod";
import { lazySchema } from "../../http/lazy-schema.ts";
import { confirmsPassword, emailField, mobileField, newPasswordField } from "../auth/model.ts";

const label = () => z.string({ error: "is required" }).trim().min(2, "must be 2 to 80 characters").max(80, "must be 2 to 80 characters");

/** POST /api/setup: the first owner and workspace, from the setup link. */
export const setupBody = lazySchema(() =>
  z.intersection(
    z.object({
      token: z.string({ error: "is required" }).min(1, "is required").max(200, "is too long"),
      name: label(),
      email: emailField,
      password: newPasswordField,
      confirmPassword: z.string({ error: "is required" }),
      tenantName: label(),
      mobile: mobileField.optional(),
    }),
    // said with the other errors, not after them
    confirmsPassword,
  ),
);
export type SetupInput = z.infer<typeof setupBody>;

export const setupStatusQuery = lazySchema(() => z.object({ token: z.string().max(200).optional() }));
