import { useQuery } from "@tanstack/react-query";
import { get } from "../../api/client.ts";
import type { Session } from "../../api/types.ts";
import { Field, Select } from "../../ui/Field.tsx";

export interface InboxFilter {
  status: string;
  assignee: string;
  label: string;
  sessionId: string;
  needsReply: boolean;
  q: string;
}
export const NO_FILTER: InboxFilter = { status: "", assignee: "", label: "", sessionId: "", needsReply: false, q: "" };

/** The query parameters of GET /api/v1/inbox/conversations for a filter. */
export function filterParams(f: InboxFilter) {
  return {
    status: f.status || undefined,
    assignee: f.assignee || undefined,
    label: f.label.trim().toLowerCase() || undefined,
    sessionId: f.sessionId || undefined,
    needsReply: f.needsReply ? "true" : undefined,
    q: f.q.trim() || undefined,
  };
}

/** The conversation list's filters: status, assignee, label, number, needs reply, and the contact search box. */
export function Filters({ value, onChange }: { value: InboxFilter; onChange: (f: InboxFilter) => void }) {
  const sessions = useQuery({ queryKey: ["sessions"], queryFn: () => get<Session[]>("/api/v1/chatapp?limit=100") });
  const set = (p: Partial<InboxFilter>) => onChange({ ...value, ...p });
  return (
    <fieldset className="inbox-filters">
      <legend className="sr-only">Filter conversations</legend>
      <Field label="Contact name or phone" name="q" type="search" value={value.q} onChange={(e) => set({ q: e.target.value })} />
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
      <label className="check">
        <input type="checkbox" checked={value.needsReply} onChange={(e) => set({ needsReply: e.target.checked })} /> Needs reply
      </label>
    </fieldset>
  );
}
