import { useQuery } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { del, get, patch, post } from "../api/client.ts";
import { can } from "../api/roles.ts";
import type { Automation, Contact } from "../api/types.ts";
import { ErrorNote } from "../ui/errors.tsx";
import { Field, Select, TextArea } from "../ui/Field.tsx";
import { useAction, useAuth } from "../ui/hooks.ts";
import { renderTemplate } from "./Campaigns.tsx";

const DAYS = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"] as const;
const SAMPLE = { name: "Asha", pushName: null, phone: "919800000000", attributes: {} };

/** Away hours as text, one day a line: "mon 09:00-17:00, 18:00-20:00". */
function hoursText(hours: Record<string, { from: string; to: string }[]> | undefined): string {
  return DAYS.filter((d) => hours?.[d]?.length)
    .map((d) => `${d} ${hours![d]!.map((r) => `${r.from}-${r.to}`).join(", ")}`)
    .join("\n");
}
function parseHours(text: string): Record<string, { from: string; to: string }[]> {
  const hours: Record<string, { from: string; to: string }[]> = {};
  for (const line of text.split("\n").map((l) => l.trim()).filter(Boolean)) {
    const [day, ...rest] = line.split(/\s+/);
    hours[day!.toLowerCase().slice(0, 3)] = rest.join(" ").split(",").map((r) => r.trim()).filter(Boolean).map((r) => {
      const [from, to] = r.split("-").map((x) => x.trim());
      return { from: from ?? "", to: to ?? "" };
    });
  }
  return hours;
}

function describe(a: Automation): string {
  if (a.trigger.type === "keyword") return `Keyword (${a.trigger.match}): ${a.trigger.keywords.join(", ")}`;
  if (a.trigger.type === "away") return "Away: outside the working hours";
  return "Welcome: a contact's first message";
}

/** Auto-replies (docs/automations.md): the list, and a form to create or edit one with a preview of the reply. */
export function Automations() {
  const { claims } = useAuth();
  const manage = can(claims?.role, "manage");
  const list = useQuery({ queryKey: ["automations"], queryFn: () => get<Automation[]>("/api/v1/automations") });
  const [editing, setEditing] = useState<Automation | null>(null);
  const remove = useAction((id: string) => del(`/api/v1/automations/${id}`), [["automations"]]);
  return (
    <section>
      <h1>Automations</h1>
      <p>Auto-replies answer inbound messages by themselves: keywords first, then away hours, then a welcome. At most one answers a message.</p>
      {manage && <AutomationForm key={editing?.id ?? "new"} editing={editing} onDone={() => setEditing(null)} />}
      <ErrorNote error={list.error ?? remove.error} />
      {list.data?.length === 0 && <p className="empty">No automations yet.</p>}
      <ul className="cards">
        {list.data?.map((a) => (
          <li key={a.id} className="card" data-testid="automation">
            <h2>{a.name}</h2>
            <p>{describe(a)}</p>
            <p className="muted">{a.reply.body ?? `(${a.reply.type})`}</p>
            <p>
              <span className={`badge ${a.isActive ? "status-connected" : "status-disconnected"}`}>{a.isActive ? "active" : "off"}</span> · once per {a.cooldownMinutes} min per contact
            </p>
            {manage && (
              <p>
                <button type="button" className="secondary" onClick={() => setEditing(a)}>
                  Edit {a.name}
                </button>{" "}
                <button type="button" className="secondary" onClick={() => remove.mutate(a.id)}>
                  Delete {a.name}
                </button>
              </p>
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}

function AutomationForm({ editing, onDone }: { editing: Automation | null; onDone: () => void }) {
  const t = editing?.trigger;
  const [name, setName] = useState(editing?.name ?? "");
  const [type, setType] = useState<string>(t?.type ?? "keyword");
  const [keywords, setKeywords] = useState(t?.type === "keyword" ? t.keywords.join(", ") : "");
  const [match, setMatch] = useState(t?.type === "keyword" ? t.match : "exact");
  const [hours, setHours] = useState(t?.type === "away" ? hoursText(t.hours) : "mon 09:00-17:00\ntue 09:00-17:00\nwed 09:00-17:00\nthu 09:00-17:00\nfri 09:00-17:00");
  const [body, setBody] = useState(editing?.reply.body ?? "Hello {{name|there}}!");
  const [cooldown, setCooldown] = useState(String(editing?.cooldownMinutes ?? 60));
  const [active, setActive] = useState(editing?.isActive ?? true);
  const contacts = useQuery({ queryKey: ["automation-sample"], queryFn: () => get<Contact[]>("/api/v1/contacts?limit=1") });
  const sample = contacts.data?.[0] ?? SAMPLE;
  const trigger = type === "keyword" ? { type, keywords: keywords.split(",").map((k) => k.trim()).filter(Boolean), match } : type === "away" ? { type, hours: parseHours(hours) } : { type };
  const payload = { name, trigger, reply: editing && editing.reply.type !== "text" ? { ...editing.reply, body } : { body }, cooldownMinutes: Number(cooldown), isActive: active };
  const save = useAction(() => (editing ? patch(`/api/v1/automations/${editing.id}`, payload) : post("/api/v1/automations", payload)), [["automations"]], () => {
    setName("");
    onDone();
  });
  return (
    <details className="panel" open={!!editing}>
      <summary>{editing ? `Edit ${editing.name}` : "Add an automation"}</summary>
      <form onSubmit={(e: FormEvent) => (e.preventDefault(), save.mutate(undefined))} noValidate>
        <Field label="Automation name" name="name" required value={name} onChange={(e) => setName(e.target.value)} error={save.error} />
        <Select label="Trigger" name="trigger.type" value={type} onChange={(e) => setType(e.target.value)} error={save.error}>
          <option value="keyword">Keyword</option>
          <option value="away">Away (outside working hours)</option>
          <option value="welcome">Welcome (first message)</option>
        </Select>
        {type === "keyword" && (
          <>
            <Field label="Keywords (comma-separated)" name="trigger.keywords" value={keywords} onChange={(e) => setKeywords(e.target.value)} error={save.error} />
            <Select label="Match" name="trigger.match" value={match} onChange={(e) => setMatch(e.target.value as "exact" | "contains")} error={save.error}>
              <option value="exact">The whole message</option>
              <option value="contains">Anywhere in the message</option>
            </Select>
          </>
        )}
        {type === "away" && (
          <TextArea label="Working hours, one day a line (workspace time zone)" name="trigger.hours" rows={5} hint="mon 09:00-17:00, 18:00-20:00 — a day left out is closed" value={hours} onChange={(e) => setHours(e.target.value)} error={save.error} />
        )}
        <TextArea label="Reply" name="reply.body" rows={3} required hint="Variables: {{name}}, {{phone}}, {{attributes.KEY}}; a default after a pipe: {{name|friend}}" value={body} onChange={(e) => setBody(e.target.value)} error={save.error} />
        <section className="preview" aria-label="Reply preview">
          <h2>Preview</h2>
          <p className="muted">As {sample.name ?? sample.pushName ?? `+${sample.phone}`} would read it:</p>
          <p className="bubble" data-testid="automation-preview">
            {renderTemplate(body, sample)}
          </p>
        </section>
        <Field label="Cooldown per contact (minutes)" name="cooldownMinutes" type="number" min={0} value={cooldown} onChange={(e) => setCooldown(e.target.value)} error={save.error} />
        <div className="check">
          <input id="automation-active" type="checkbox" checked={active} onChange={(e) => setActive(e.target.checked)} />
          <label htmlFor="automation-active">Active</label>
        </div>
        <ErrorNote error={save.error} />
        <button type="submit" disabled={save.isPending}>
          {editing ? "Save automation" : "Create automation"}
        </button>
        {editing && (
          <button type="button" className="secondary" onClick={onDone}>
            Cancel
          </button>
        )}
      </form>
    </details>
  );
}
