/** Keyset pagination (docs/api.md: large, growing lists take `before`/`after` cursors on UUIDv7 ids). */
export interface CursorPagination {
  limit: number;
  hasMore: boolean;
  /** pass as `before` for the next (older) page; null when there is none */
  nextCursor: string | null;
  /** pass as `after` for newer items; null when this page holds the newest */
  prevCursor: string | null;
}

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
