import { useQuery } from "@tanstack/react-query";
import { get } from "../../api/client.ts";
import type { Session } from "../../api/types.ts";
import { Field, Select } from "../../ui/Field.tsx";

export interface InboxFilter {
  status: string;
  assignee: string;
  label: string;
  sessionId: string;
  /** the quick views: all, needs reply, unread, mine */
  show: "all" | "needsReply" | "unread" | "mine";
  q: string;
}
export const NO_FILTER: InboxFilter = { status: "", assignee: "", label: "", sessionId: "", show: "all", q: "" };

/** The query parameters of GET /api/v1/inbox/conversations for a filter. */
export function filterParams(f: InboxFilter) {
  return {
    status: f.status || undefined,
    assignee: f.show === "mine" ? "me" : f.assignee || undefined,
    unread: f.show === "unread" ? "true" : undefined,
    label: f.label.trim().toLowerCase() || undefined,
    sessionId: f.sessionId || undefined,
    needsReply: f.show === "needsReply" ? "true" : undefined,
    q: f.q.trim() || undefined,
  };
}

/** The quick view ("needs reply" and the like) and the contact search box, always shown. */
export function QuickFilters({ value, onChange }: { value: InboxFilter; onChange: (f: InboxFilter) => void }) {
  const set = (p: Partial<InboxFilter>) => onChange({ ...value, ...p });
  return (
    <div className="filter-row">
      <Select label="Show" name="filter" value={value.show} onChange={(e) => set({ show: e.target.value as InboxFilter["show"] })}>
        <option value="all">All conversations</option>
        <option value="needsReply">Needs reply</option>
        <option value="unread">Unread</option>
        <option value="mine">Assigned to me</option>
      </Select>
      <Field label="Contact name or phone" name="q" type="search" value={value.q} onChange={(e) => set({ q: e.target.value })} />
    </div>
  );
}

/** The other filters: status, assignee, label, number. */
export function Filters({ value, onChange }: { value: InboxFilter; onChange: (f: InboxFilter) => void }) {
  const sessions = useQuery({ queryKey: ["sessions"], queryFn: () => get<Session[]>("/api/v1/chatapp?limit=100") });
  const set = (p: Partial<InboxFilter>) => onChange({ ...value, ...p });
  return (
    <fieldset className="inbox-filters">
      <legend className="sr-only">More filters</legend>
      <div className="filter-row">
        <Select label="Status" name="status" value={value.status} onChange={(e) => set({ status: e.target.value })}>
          <option value="">Any status</option>
          <option value="open">Open</option>
          <option value="pending">Pending</option>
          <option value="closed">Closed</option>
        </Select>
        <Select label="Assignee" name="assignee" value={value.assignee} onChange={(e) => set({ assignee: e.target.value })}>
          <option value="">Anyone</option>
          <option value="me">Me</option>
          <option value="none">Nobody</option>
        </Select>
      </div>
      <div className="filter-row">
        <Field label="Label" name="label" value={value.label} onChange={(e) => set({ label: e.target.value })} />
        <Select label="Number" name="sessionId" value={value.sessionId} onChange={(e) => set({ sessionId: e.target.value })}>
          <option value="">All numbers</option>
          {sessions.data?.map((s) => (
            <option key={s.id} value={s.id}>
              {s.name}
              {s.phoneNumber ? ` · +${s.phoneNumber}` : ""}
            </option>
          ))}
        </Select>
      </div>
    </fieldset>
  );
}
