import type { CursorPagination } from "./model.ts";

/** The pagination of a keyset page (data newest first), from the query that produced it. */
export function cursorPagination(ids: string[], hasMore: boolean, q: { before?: string; after?: string; limit: number }): CursorPagination {
  const first = ids[0] ?? null;
  const last = ids.at(-1) ?? null;
  if (q.after) return { limit: q.limit, hasMore, nextCursor: last, prevCursor: hasMore ? first : null };
  return { limit: q.limit, hasMore, nextCursor: hasMore ? last : null, prevCursor: q.before ? first : null };
}

/** Success envelope of a keyset list. */
export function cursorPaged<T>(data: T[], pagination: CursorPagination) {
  return { success: true as const, data, pagination };
}
