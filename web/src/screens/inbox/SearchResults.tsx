import { useInfiniteQuery } from "@tanstack/react-query";
import { Link } from "wouter";
import { api, qs } from "../../api/client.ts";
import type { SearchHit } from "../../api/types.ts";
import { ErrorNote } from "../../ui/errors.tsx";
import { contactName } from "../../ui/hooks.ts";
import { fmtWhen, sessionLabel } from "./when.ts";

/** Messages holding every word of q, newest first; a hit opens its thread at that message. */
export function SearchResults({ q }: { q: string }) {
  const hits = useInfiniteQuery({
    queryKey: ["search", q],
    queryFn: ({ pageParam }) => api<SearchHit[]>("GET", `/api/v1/inbox/search${qs({ q, limit: 20, before: pageParam })}`),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => (last.pagination?.hasMore ? (last.pagination.nextCursor ?? undefined) : undefined),
  });
  const rows = hits.data?.pages.flatMap((p) => p.data) ?? [];
  return (
    <div className="search-results">
      <ErrorNote error={hits.error} />
      {hits.isSuccess && rows.length === 0 && <p className="empty">No message holds every word of “{q}”.</p>}
      <ul className="conv-list" aria-label="Messages found">
        {rows.map((m) => (
          <li key={m.id}>
            <Link href={`/inbox/${m.conversation.id}?hit=${m.id}`} className="conv">
              <span className="conv-name">{contactName(m.conversation)}</span>
              <span className="conv-side">
                <time dateTime={m.createdAt}>{fmtWhen(m.createdAt)}</time>
              </span>
              <span className="conv-number">{sessionLabel(m.conversation.session)}</span>
              <span className="conv-last">
                {m.direction === "outbound" ? "You: " : ""}
                {m.body}
              </span>
            </Link>
          </li>
        ))}
      </ul>
      {hits.hasNextPage && (
        <button type="button" className="secondary" onClick={() => void hits.fetchNextPage()} disabled={hits.isFetchingNextPage}>
          More results
        </button>
      )}
    </div>
  );
}
