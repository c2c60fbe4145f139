import { useQuery } from "@tanstack/react-query";
import { useEffect, useState, type FormEvent } from "react";
import { ApiError, del, get, patch, post } from "../api/client.ts";
import { useServerFacts } from "../api/server-facts.ts";
import { onLive } from "../api/live.ts";
import { can } from "../api/roles.ts";
import type { Session } from "../api/types.ts";
import { ConfirmButton } from "../ui/ConfirmButton.tsx";
import { ErrorNote } from "../ui/errors.tsx";
import { Field } from "../ui/Field.tsx";
import { fmtPhone, useAction, useAuth } from "../ui/hooks.ts";

const STATUS: Record<string, string> = { connected: "Connected", qr_pending: "Waiting for scan", disconnected: "Disconnected", connecting: "Connecting" };

/** Sessions (docs/sessions.md): live status, connect by a QR that redraws as it rotates, or by pairing code. */
export function Sessions() {
  const { claims } = useAuth();
  const manage = can(claims?.role, "manage");
  const list = useQuery({ queryKey: ["sessions"], queryFn: () => get<Session[]>("/api/v1/chatapp?limit=100") });
  const [name, setName] = useState("");
  const create = useAction((n: string) => post<Session>("/api/v1/chatapp", { name: n }), [["sessions"]], () => setName(""));
  const [qrs, setQrs] = useState<Record<string, { url: string; expiresAt: string }>>({});

  useEffect(
    () =>
      onLive((e) => {
        if (e.event === "session_qr") {
          const d = e.data as { sessionId: string; qrDataUrl: string; expiresAt: string };
          setQrs((q) => ({ ...q, [d.sessionId]: { url: d.qrDataUrl, expiresAt: d.expiresAt } }));
        }
      }),
    [],
  );

  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate(name);
  };

  return (
    <section>
      <h1>Sessions</h1>
      <p>Each session is one phone number linked to this workspace.</p>
      {manage && (
        <form className="inline" onSubmit={submit} noValidate>
          <Field label="New session name" name="name" required value={name} onChange={(e) => setName(e.target.value)} error={create.error} />
          <button type="submit" disabled={create.isPending}>
            Create session
          </button>
          <ErrorNote error={create.error} />
        </form>
      )}
      {list.isLoading && <p>Loading…</p>}
      <ErrorNote error={list.error} />
      {list.data?.length === 0 && <p className="empty">No sessions yet.</p>}
      <ul className="cards">
        {list.data?.map((s) => (
          <SessionCard key={s.id} s={s} manage={manage} qr={qrs[s.id]} onQr={(url, expiresAt) => setQrs((q) => ({ ...q, [s.id]: { url, expiresAt } }))} />
        ))}
      </ul>
    </section>
  );
}

/** A refused connect, said as one: the network could not be reached to link the number (nothing was being sent). */
function connectFailure(err: unknown): unknown {
  if (!(err instanceof ApiError) || err.status !== 502) return err;
  return new ApiError(
    502,
    "CONNECT_FAILED",
    `Could not start linking this number: ${err.message.replace(/\.$/, "")}. Try Connect again in a moment; if it keeps failing, the server may not reach the messaging network (its operator can check with \`parley doctor network\`)`,
  );
}

function SessionCard({ s, manage, qr, onQr }: { s: Session; manage: boolean; qr?: { url: string; expiresAt: string }; onQr: (url: string, exp: string) => void }) {
  const connect = useAction(
    async () => {
      const r = await post<{ status: string }>(`/api/v1/chatapp/${s.id}/connect`).catch((err: unknown) => {
        throw connectFailure(err);
      });
      // the first QR may have been published before this page listened: read it once
      if (r.status === "qr_pending") {
        const q = await get<{ qrDataUrl: string; expiresAt: string }>(`/api/v1/chatapp/${s.id}/qr`).catch(() => null);
        if (q) onQr(q.qrDataUrl, q.expiresAt);
      }
      return r;
    },
    [["sessions"]],
  );
  const disconnect = useAction(() => post(`/api/v1/chatapp/${s.id}/disconnect`), [["sessions"]]);
  const remove = useAction(() => del(`/api/v1/chatapp/${s.id}`), [["sessions"]]);
  const [phone, setPhone] = useState("");
  const facts = useServerFacts();
  const [simPhone, setSimPhone] = useState("");
  const scan = useAction((phoneNumber: string) => post(`/api/sim/sessions/${s.id}/scan`, { phoneNumber }), [["sessions"]]);
  const pairing = useAction((phoneNumber: string) => post<{ code: string }>(`/api/v1/chatapp/${s.id}/pairing-code`, { phoneNumber }));
  const groups = useAction((on: boolean) => patch(`/api/v1/chatapp/${s.id}`, { settings: { groups: on } }), [["sessions"]]);
  const error = connect.error ?? disconnect.error ?? remove.error ?? groups.error;

  return (
    <li className="card" aria-labelledby={`s-${s.id}`}>
      <h2 id={`s-${s.id}`}>{s.name}</h2>
      <p>
        <span className={`badge status-${s.status}`} data-testid="session-status">
          {STATUS[s.status] ?? s.status}
        </span>{" "}
        {s.status === "connected" && <span>as {fmtPhone(s.phoneNumber)}</span>}
        {s.status === "connected" && s.live === false && (
          <span className="muted" data-testid="session-reconnecting">
            {" "}
            (reconnecting…)
          </span>
        )}
        {s.status === "disconnected" && s.lastDisconnectReason && <span className="muted"> ({s.lastDisconnectReason.replace(/_/g, " ")})</span>}
      </p>
      {manage && s.status === "qr_pending" && (
        <div className="qr">
          {qr ? (
            <img src={qr.url} alt={`QR code to link ${s.name}: scan it with the phone's linked devices screen`} width={240} height={240} />
          ) : (
            <p>Waiting for the QR code…</p>
          )}
          <p className="muted">The code changes every few seconds; this picture follows it.</p>
          <form
            className="inline"
            onSubmit={(e) => {
              e.preventDefault();
              pairing.mutate(phone);
            }}
            noValidate
          >
            <Field label="Or link with the phone number" name="phoneNumber" type="tel" hint="Digits with the country code" value={phone} onChange={(e) => setPhone(e.target.value)} error={pairing.error} />
            <button type="submit" className="secondary" aria-label={`Get pairing code for ${s.name}`}>
              Get pairing code
            </button>
          </form>
          {pairing.data && (
            <p role="status">
              Enter this code on the phone: <strong className="code">{pairing.data.code}</strong>
            </p>
          )}
          <ErrorNote error={pairing.error} />
          {facts.data?.simNetwork && (
            <form
              className="inline sim"
              onSubmit={(e) => {
                e.preventDefault();
                scan.mutate(simPhone);
              }}
              noValidate
            >
              <p className="note">This server runs the simulated network (for trying Parley out): no phone needed, give the number the session should have.</p>
              <Field label="Simulated number" name="phoneNumber" type="tel" hint="Digits with the country code" value={simPhone} onChange={(e) => setSimPhone(e.target.value)} error={scan.error} />
              <button type="submit" aria-label={`Simulate the scan of ${s.name}`} disabled={scan.isPending}>
                Simulate the scan
              </button>
              <ErrorNote error={scan.error} />
            </form>
          )}
        </div>
      )}
      {manage && (
        <label className="check">
          <input type="checkbox" checked={s.settings?.groups ?? false} disabled={groups.isPending} onChange={(e) => groups.mutate(e.target.checked)} />
          Keep group chats (off: messages in groups are not stored)
        </label>
      )}
      {manage && (
        <div className="actions">
          {s.status === "disconnected" && (
            <button type="button" onClick={() => connect.mutate()} disabled={connect.isPending}>
              {connect.isPending ? "Connecting…" : `Connect ${s.name}`}
            </button>
          )}
          {(s.status === "connected" || s.status === "qr_pending") && (
            <button type="button" className="secondary" aria-label={`Disconnect ${s.name}`} onClick={() => disconnect.mutate()}>
              Disconnect
            </button>
          )}
          <ConfirmButton label={`Delete ${s.name}`} confirm="Yes, delete it" onConfirm={() => remove.mutate()} />
        </div>
      )}
      <ErrorNote error={error} />
    </li>
  );
}
