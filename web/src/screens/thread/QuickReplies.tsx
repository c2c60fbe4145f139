import { useQuery } from "@tanstack/react-query";
import { get, qs } from "../../api/client.ts";
import type { QuickReply } from "../../api/types.ts";

/** The quick replies whose shortcut starts with what follows the `/` typed in the composer. */
export function useQuickReplies(text: string) {
  const prefix = /^\/[\w-]*$/.test(text) ? text.slice(1).toLowerCase() : null;
  const q = useQuery({
    queryKey: ["quick-replies", prefix],
    queryFn: () => get<QuickReply[]>(`/api/v1/quick-replies${qs({ prefix: prefix ?? "", limit: 8 })}`),
    enabled: prefix !== null,
  });
  return prefix === null ? null : (q.data ?? []);
}

/** The picker shown under the composer while a `/shortcut` is typed. */
export function QuickReplyPicker({ items, active, onPick }: { items: QuickReply[]; active: number; onPick: (r: QuickReply) => void }) {
  if (!items.length) return <p className="muted small">No quick reply starts with that.</p>;
  return (
    <ul className="quick-replies" role="listbox" aria-label="Quick replies" id="quick-replies">
      {items.map((r, i) => (
        <li key={r.id} role="option" id={`qr-${r.id}`} aria-selected={i === active} className={i === active ? "active" : undefined} onMouseDown={(e) => (e.preventDefault(), onPick(r))}>
          <strong>/{r.shortcut}</strong> <span className="muted">{r.body}</span>
        </li>
      ))}
    </ul>
  );
}
