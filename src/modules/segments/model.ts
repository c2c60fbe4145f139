import { z } from "zod";
import { pageQuery } from "../../http/envelope.ts";
import { segmentFilter } from "./filter.ts";
import { lazySchema } from "../../http/lazy-schema.ts";

export const segmentIdParams = lazySchema(() => z.object({ id: z.uuid() }));
export const segmentListQuery = pageQuery;

const name = lazySchema(() => z.string().trim().min(1, "must not be empty").max(80, "must be at most 80 characters"));

export const createSegmentBody = lazySchema(() => z.object({ name, filter: segmentFilter }));
export type CreateSegmentInput = z.infer<typeof createSegmentBody>;

export const updateSegmentBody = lazySchema(() =>
  z
    .object({ name: name.optional(), filter: segmentFilter.optional() })
    .refine((b) => b.name !== undefined || b.filter !== undefined, { message: "give name or filter", path: ["body"] }),
);
export type UpdateSegmentInput = z.infer<typeof updateSegmentBody>;

export const previewBody = lazySchema(() => z.object({ filter: segmentFilter }));

// -- response shapes (OpenAPI) --
export const segmentSchema = lazySchema(() =>
  z.object({
    id: z.uuid(),
    name: z.string(),
    filter: segmentFilter,
    /** opted-in contacts matching now */
    count: z.number().int(),
    createdAt: z.string(),
    updatedAt: z.string(),
  }),
);
export type SegmentView = z.infer<typeof segmentSchema>;

export const previewSchema = lazySchema(() =>
  z.object({
    count: z.number().int(),
    sample: z.array(
      z.object({ id: z.uuid(), phone: z.string(), name: z.string().nullable(), pushName: z.string().nullable(), tags: z.array(z.string()), attributes: z.record(z.string(), z.string()) }),
    ),
  }),
);
