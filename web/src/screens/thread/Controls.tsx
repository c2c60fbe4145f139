import { useState, type FormEvent } from "react";
import { patch } from "../../api/client.ts";
import type { Conversation } from "../../api/types.ts";
import { ErrorNote } from "../../ui/errors.tsx";
import { Field, Select } from "../../ui/Field.tsx";
import { useAction } from "../../ui/hooks.ts";

const toLocalInput = (d: Date) => new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);

/** Status, snooze and labels of a conversation (PATCH /api/v1/inbox/conversations/{id}). */
export function Controls({ c }: { c: Conversation }) {
  const change = useAction((body: Record<string, unknown>) => patch(`/api/v1/inbox/conversations/${c.id}`, body), [["conversations"], ["thread", c.id, "conv"]]);
  const [until, setUntil] = useState(() => toLocalInput(new Date(Date.now() + 86_400_000)));
  const [label, setLabel] = useState("");
  const labels = c.labels ?? [];
  const snoozed = c.snoozedUntil && new Date(c.snoozedUntil) > new Date();
  const addLabel = (e: FormEvent) => {
    e.preventDefault();
    const l = label.trim().toLowerCase();
    if (!l || labels.includes(l)) return setLabel("");
    change.mutate({ labels: [...labels, l] }, { onSuccess: () => setLabel("") });
  };
  return (
    <div className="conv-controls">
      <Select label="Status" name="status" value={c.status ?? "open"} onChange={(e) => change.mutate({ status: e.target.value })} error={change.error}>
        <option value="open">Open</option>
        <option value="pending">Pending</option>
        <option value="closed">Closed</option>
      </Select>
      <div className="snooze">
        {snoozed ? (
          <p>
            Snoozed until {new Date(c.snoozedUntil!).toLocaleString()}{" "}
            <button type="button" className="link" onClick={() => change.mutate({ snoozedUntil: null })}>
              Wake now
            </button>
          </p>
        ) : (
          <form
            className="inline-form"
            onSubmit={(e) => {
              e.preventDefault();
              change.mutate({ snoozedUntil: new Date(until).toISOString() });
            }}
          >
            <Field label="Snooze until" name="snoozedUntil" type="datetime-local" value={until} onChange={(e) => setUntil(e.target.value)} error={change.error} />
            <button type="submit" className="secondary">
              Snooze
            </button>
          </form>
        )}
      </div>
      <div className="labels">
        <ul className="label-list" aria-label="Labels">
          {labels.map((l) => (
            <li key={l} className="badge label">
              {l}{" "}
              <button type="button" className="link" aria-label={`Remove label ${l}`} onClick={() => change.mutate({ labels: labels.filter((x) => x !== l) })}>
                ×
              </button>
            </li>
          ))}
        </ul>
        <form className="inline-form" onSubmit={addLabel}>
          <Field label="Add a label" name="labels" value={label} maxLength={40} onChange={(e) => setLabel(e.target.value)} error={change.error} />
          <button type="submit" className="secondary">
            Add label
          </button>
        </form>
      </div>
      <ErrorNote error={change.error} />
    </div>
  );
}
