import { useQuery } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { del, get, post } from "../api/client.ts";
import { ConfirmButton } from "../ui/ConfirmButton.tsx";
import { ErrorNote } from "../ui/errors.tsx";
import { Field } from "../ui/Field.tsx";
import { fmtDate, useAction } from "../ui/hooks.ts";
import { Secret } from "../ui/Secret.tsx";

interface ApiKey {
  id: string;
  name: string;
  prefix: string;
  createdAt: string;
  lastUsedAt: string | null;
  expiresAt: string | null;
  key?: string;
}

/** API keys (docs/api.md): created and shown once, revoked at once. Owners and admins only. */
export function ApiKeys() {
  const list = useQuery({ queryKey: ["api-keys"], queryFn: () => get<ApiKey[]>("/api/api-keys?limit=100") });
  const [name, setName] = useState("");
  const [expires, setExpires] = useState("");
  const [shown, setShown] = useState<string | null>(null);
  const create = useAction(
    () => post<ApiKey>("/api/api-keys", { name, expiresAt: expires ? new Date(expires).toISOString() : undefined }),
    [["api-keys"]],
    (k) => {
      setName("");
      setExpires("");
      setShown(k.key ?? null);
    },
  );
  const revoke = useAction((id: string) => del(`/api/api-keys/${id}`), [["api-keys"]]);
  return (
    <section>
      <h1>API keys</h1>
      <p>Keys work under /api/external and on POST /api/v1/messages/send, never from a browser.</p>
      {shown && <Secret label="API key" value={shown} onDone={() => setShown(null)} />}
      <form className="panel" onSubmit={(e: FormEvent) => (e.preventDefault(), create.mutate())} noValidate>
        <Field label="Key name" name="name" required value={name} onChange={(e) => setName(e.target.value)} error={create.error} />
        <Field label="Expires (optional)" name="expiresAt" type="date" value={expires} onChange={(e) => setExpires(e.target.value)} error={create.error} />
        <ErrorNote error={create.error} />
        <button type="submit">Create key</button>
      </form>
      <ErrorNote error={list.error ?? revoke.error} />
      {list.data?.length === 0 && <p className="empty">No keys.</p>}
      <ul className="cards">
        {list.data?.map((k) => (
          <li key={k.id} className="card">
            <h2>{k.name}</h2>
            <p>
              <code>{k.prefix}…</code>
            </p>
            <p className="muted">
              Created {fmtDate(k.createdAt)} · last used {fmtDate(k.lastUsedAt)} · expires {k.expiresAt ? fmtDate(k.expiresAt) : "never"}
            </p>
            <ConfirmButton label={`Revoke ${k.name}`} confirm="Yes, revoke" onConfirm={() => revoke.mutate(k.id)} />
          </li>
        ))}
      </ul>
    </section>
  );
}
