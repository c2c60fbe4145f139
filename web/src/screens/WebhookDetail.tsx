import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { Link, useLocation, useParams } from "wouter";
import { api, del, get, patch, post, qs } from "../api/client.ts";
import { can } from "../api/roles.ts";
import type { Delivery, Webhook } from "../api/types.ts";
import { ConfirmButton } from "../ui/ConfirmButton.tsx";
import { ErrorNote } from "../ui/errors.tsx";
import { Field, Select } from "../ui/Field.tsx";
import { fmtDate, useAction, useAuth } from "../ui/hooks.ts";
import { Secret } from "../ui/Secret.tsx";
import { EventPicker } from "./Webhooks.tsx";

/** One webhook: events, on/off, test, rotate the secret, the delivery history with retry. */
export function WebhookDetail() {
  const { id } = useParams<{ id: string }>();
  const [, navigate] = useLocation();
  const { claims } = useAuth();
  const manage = can(claims?.role, "manage");
  const w = useQuery({ queryKey: ["webhook", id], queryFn: () => get<Webhook>(`/api/webhooks/${id}`) });
  const [status, setStatus] = useState("");
  const history = useQuery({
    queryKey: ["webhook", id, "history", status],
    queryFn: () => api<Delivery[]>("GET", `/api/webhooks/${id}/history${qs({ status, limit: 50 })}`),
    refetchInterval: 5000,
  });
  const [events, setEvents] = useState<string[] | null>(null);
  const [name, setName] = useState<string | null>(null);
  const [url, setUrl] = useState<string | null>(null);
  const [secret, setSecret] = useState<string | null>(null);
  const keys = [["webhook", id], ["webhooks"]];
  const save = useAction((body: Partial<Webhook>) => patch(`/api/webhooks/${id}`, body), keys, () => {
    setEvents(null);
    setName(null);
    setUrl(null);
  });
  const test = useAction(() => post<{ delivered: boolean; responseStatus: number }>(`/api/webhooks/${id}/test`), [["webhook", id, "history"]]);
  const rotate = useAction(() => post<{ secret: string }>(`/api/webhooks/${id}/rotate-secret`), keys, (r) => setSecret(r.secret));
  const retry = useAction((d: string) => post(`/api/webhooks/${id}/deliveries/${d}/retry`), [["webhook", id, "history"]]);
  const remove = useAction(() => del(`/api/webhooks/${id}`), [["webhooks"]], () => navigate("/webhooks"));
  const hook = w.data;
  if (!hook) return <section>{w.isLoading ? <p>Loading…</p> : <ErrorNote error={w.error} />}</section>;

  return (
    <section>
      <p>
        <Link href="/webhooks">← Webhooks</Link>
      </p>
      <h1>{hook.name}</h1>
      <p className="break">{hook.url}</p>
      <p>
        {hook.isActive ? "Active" : `Switched off${hook.disabledReason ? ` (${hook.disabledReason})` : ""}`}
      </p>
      {secret && <Secret label="New signing secret" value={secret} onDone={() => setSecret(null)} />}
      {manage && (
        <>
          <form className="inline" onSubmit={(e) => (e.preventDefault(), save.mutate({ name: name ?? hook.name, url: url ?? hook.url }))} noValidate>
            <Field label="Webhook name" name="name" value={name ?? hook.name} onChange={(e) => setName(e.target.value)} error={save.error} />
            <Field label="URL" name="url" type="url" value={url ?? hook.url} onChange={(e) => setUrl(e.target.value)} error={save.error} />
            <button type="submit" className="secondary">
              Save name and URL
            </button>
          </form>
          <EventPicker value={events ?? hook.events} onChange={setEvents} error={save.error} />
          <div className="actions">
            {events && <button type="button" onClick={() => save.mutate({ events })}>Save events</button>}
            <button type="button" className="secondary" onClick={() => save.mutate({ isActive: !hook.isActive })}>
              {hook.isActive ? "Switch off" : "Switch on"}
            </button>
            <button type="button" className="secondary" onClick={() => test.mutate()}>
              Send a test event
            </button>
            <button type="button" className="secondary" onClick={() => rotate.mutate()}>
              Rotate secret
            </button>
            <ConfirmButton label="Delete webhook" confirm="Yes, delete" onConfirm={() => remove.mutate()} />
          </div>
          {test.data && (
            <p role="status">
              Test {test.data.delivered ? "delivered" : "not delivered"} (HTTP {test.data.responseStatus || "no answer"})
            </p>
          )}
        </>
      )}
      <ErrorNote error={save.error ?? test.error ?? rotate.error ?? retry.error ?? remove.error} />
      <h2>History</h2>
      <Select label="Delivery status" name="status" value={status} onChange={(e) => setStatus(e.target.value)}>
        <option value="">All</option>
        {["pending", "retrying", "success", "failed"].map((s) => (
          <option key={s}>{s}</option>
        ))}
      </Select>
      <div className="table-wrap">
        <table>
          <thead>
            <tr>
              <th scope="col">Event</th>
              <th scope="col">Status</th>
              <th scope="col">HTTP</th>
              <th scope="col">Attempts</th>
              <th scope="col">When</th>
              {manage && <th scope="col">Retry</th>}
            </tr>
          </thead>
          <tbody>
            {history.data?.data.map((d) => (
              <tr key={d.id}>
                <td>
                  {d.eventType}
                  {d.isTest ? " (test)" : ""}
                </td>
                <td>
                  {d.status}
                  {d.error ? ` · ${d.error}` : ""}
                </td>
                <td>{d.responseStatus ?? "—"}</td>
                <td>{d.attempts}</td>
                <td>{fmtDate(d.createdAt)}</td>
                {manage && (
                  <td>
                    <button type="button" className="secondary small" onClick={() => retry.mutate(d.id)} aria-label={`Retry delivery ${d.eventType} of ${fmtDate(d.createdAt)}`}>
                      Retry
                    </button>
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {history.data?.data.length === 0 && <p className="empty">No deliveries yet.</p>}
    </section>
  );
}
