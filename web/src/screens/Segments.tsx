import { useQuery } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { del, get, patch, post } from "../api/client.ts";
import { can } from "../api/roles.ts";
import type { Segment } from "../api/types.ts";
import { ConfirmButton } from "../ui/ConfirmButton.tsx";
import { ErrorNote } from "../ui/errors.tsx";
import { Field } from "../ui/Field.tsx";
import { emptyFilter, FilterEditor, fromFilter, toFilter, type FilterText } from "../ui/FilterEditor.tsx";
import { useAction, useAuth } from "../ui/hooks.ts";

/** Segments (docs/contacts-and-campaigns.md): saved filters with a count that follows the filter as it is typed. */
export function Segments() {
  const { claims } = useAuth();
  const messaging = can(claims?.role, "messaging");
  const list = useQuery({ queryKey: ["segments"], queryFn: () => get<Segment[]>("/api/v1/segments?limit=100") });
  const [editing, setEditing] = useState<Segment | "new" | null>(null);

  return (
    <section>
      <h1>Segments</h1>
      <p>A segment is a saved filter over contacts; its count is the opted-in contacts matching now.</p>
      {messaging && editing === null && (
        <button type="button" onClick={() => setEditing("new")}>
          New segment
        </button>
      )}
      {editing && <SegmentForm key={editing === "new" ? "new" : editing.id} segment={editing === "new" ? null : editing} onClose={() => setEditing(null)} />}
      <ErrorNote error={list.error} />
      {list.data?.length === 0 && <p className="empty">No segments yet.</p>}
      <ul className="cards">
        {list.data?.map((s) => (
          <SegmentCard key={s.id} s={s} messaging={messaging} onEdit={() => setEditing(s)} />
        ))}
      </ul>
    </section>
  );
}

function SegmentCard({ s, messaging, onEdit }: { s: Segment; messaging: boolean; onEdit: () => void }) {
  const remove = useAction(() => del(`/api/v1/segments/${s.id}`), [["segments"]]);
  return (
    <li className="card">
      <h2>{s.name}</h2>
      <p>
        <strong>{s.count}</strong> contacts
      </p>
      <p className="muted">{describe(s)}</p>
      {messaging && (
        <div className="actions">
          <button type="button" className="secondary" onClick={onEdit}>
            Edit {s.name}
          </button>
          <ConfirmButton label={`Delete ${s.name}`} confirm="Yes, delete" onConfirm={() => remove.mutate()} />
        </div>
      )}
      <ErrorNote error={remove.error} />
    </li>
  );
}

function describe(s: Segment): string {
  const f = s.filter ?? {};
  const parts: string[] = [];
  if (f.tagsAny?.length) parts.push(`any of ${f.tagsAny.join(", ")}`);
  if (f.tagsAll?.length) parts.push(`all of ${f.tagsAll.join(", ")}`);
  if (f.tagsNone?.length) parts.push(`none of ${f.tagsNone.join(", ")}`);
  if (f.lastInboundWithinDays) parts.push(`wrote within ${f.lastInboundWithinDays} days`);
  if (f.createdWithinDays) parts.push(`added within ${f.createdWithinDays} days`);
  return parts.length ? parts.join("; ") : "every opted-in contact";
}

function SegmentForm({ segment, onClose }: { segment: Segment | null; onClose: () => void }) {
  const [name, setName] = useState(segment?.name ?? "");
  const [filter, setFilter] = useState<FilterText>(segment ? fromFilter(segment.filter) : emptyFilter);
  const save = useAction(
    () => (segment ? patch(`/api/v1/segments/${segment.id}`, { name, filter: toFilter(filter) }) : post("/api/v1/segments", { name, filter: toFilter(filter) })),
    [["segments"]],
    onClose,
  );
  return (
    <form className="panel" onSubmit={(e: FormEvent) => (e.preventDefault(), save.mutate())} noValidate>
      <h2>{segment ? `Edit ${segment.name}` : "New segment"}</h2>
      <Field label="Segment name" name="name" required value={name} onChange={(e) => setName(e.target.value)} error={save.error} />
      <FilterEditor value={filter} onChange={setFilter} error={save.error} />
      <ErrorNote error={save.error} />
      <div className="actions">
        <button type="submit">Save segment</button>
        <button type="button" className="secondary" onClick={onClose}>
          Cancel
        </button>
      </div>
    </form>
  );
}
