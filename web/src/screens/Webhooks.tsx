import { useQuery } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { Link } from "wouter";
import { get, post } from "../api/client.ts";
import { can } from "../api/roles.ts";
import type { Webhook } from "../api/types.ts";
import { ErrorNote, fieldError } from "../ui/errors.tsx";
import { Field } from "../ui/Field.tsx";
import { useAction, useAuth } from "../ui/hooks.ts";
import { Secret } from "../ui/Secret.tsx";

/** Webhooks (docs/webhooks.md): the list, and creating one with its secret shown once. */
export function Webhooks() {
  const { claims } = useAuth();
  const manage = can(claims?.role, "manage");
  const list = useQuery({ queryKey: ["webhooks"], queryFn: () => get<Webhook[]>("/api/webhooks") });
  const [secret, setSecret] = useState<string | null>(null);
  return (
    <section>
      <h1>Webhooks</h1>
      <p>Parley signs and posts events to your servers, retrying until they answer 2xx.</p>
      {secret && <Secret label="Signing secret" value={secret} onDone={() => setSecret(null)} />}
      {manage && !secret && <NewWebhook onCreated={(w) => setSecret(w.secret ?? null)} />}
      <ErrorNote error={list.error} />
      {list.data?.length === 0 && <p className="empty">No webhooks yet.</p>}
      <ul className="cards">
        {list.data?.map((w) => (
          <li key={w.id} className="card">
            <h2>
              <Link href={`/webhooks/${w.id}`}>{w.name}</Link>
            </h2>
            <p className="break">{w.url}</p>
            <p>
              <span className={`badge ${w.isActive ? "status-connected" : "status-disconnected"}`}>{w.isActive ? "active" : `off${w.disabledReason ? ` (${w.disabledReason})` : ""}`}</span>
            </p>
            <p className="muted">{w.events.join(", ")}</p>
          </li>
        ))}
      </ul>
    </section>
  );
}

export function EventPicker({ value, onChange, error }: { value: string[]; onChange: (v: string[]) => void; error: unknown }) {
  const events = useQuery({ queryKey: ["webhook-events"], queryFn: () => get<string[]>("/api/webhooks/events"), staleTime: Infinity });
  const msg = fieldError(error, "events");
  return (
    <fieldset className={msg ? "invalid" : undefined}>
      <legend>Events</legend>
      <div className="checks">
        {events.data?.map((e) => (
          <div className="check" key={e}>
            <input id={`ev-${e}`} type="checkbox" checked={value.includes(e)} onChange={() => onChange(value.includes(e) ? value.filter((x) => x !== e) : [...value, e])} />
            <label htmlFor={`ev-${e}`}>{e}</label>
          </div>
        ))}
      </div>
      {msg && <small className="field-error">Events: {msg}</small>}
    </fieldset>
  );
}

function NewWebhook({ onCreated }: { onCreated: (w: Webhook) => void }) {
  const [name, setName] = useState("");
  const [url, setUrl] = useState("https://");
  const [events, setEvents] = useState<string[]>(["message_received"]);
  const create = useAction(() => post<Webhook>("/api/webhooks", { name, url, events }), [["webhooks"]], (w) => {
    setName("");
    setUrl("https://");
    onCreated(w);
  });
  return (
    <details className="panel">
      <summary>Add a webhook</summary>
      <form onSubmit={(e: FormEvent) => (e.preventDefault(), create.mutate())} noValidate>
        <Field label="Webhook name" name="name" required value={name} onChange={(e) => setName(e.target.value)} error={create.error} />
        <Field label="URL (HTTPS)" name="url" type="url" required value={url} onChange={(e) => setUrl(e.target.value)} error={create.error} />
        <EventPicker value={events} onChange={setEvents} error={create.error} />
        <ErrorNote error={create.error} />
        <button type="submit" disabled={create.isPending}>
          Create webhook
        </button>
      </form>
    </details>
  );
}
