import { useQuery } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { del, get, patch, post } from "../api/client.ts";
import { refresh } from "../api/tokens.ts";
import { can } from "../api/roles.ts";
import type { Member } from "../api/types.ts";
import { ConfirmButton } from "../ui/ConfirmButton.tsx";
import { ErrorNote } from "../ui/errors.tsx";
import { Field, Select } from "../ui/Field.tsx";
import { fmtDate, useAction, useAuth } from "../ui/hooks.ts";
import { WorkspaceSettings } from "./WorkspaceSettings.tsx";

interface Invitation {
  id: string;
  email: string;
  role: string;
  status: string;
  expiresAt: string;
  emailSent?: boolean;
}

const ROLES = ["admin", "agent", "viewer"] as const;

/** Team (docs/team-and-billing.md): members and their roles, invitations. The owner moves only by transfer. */
export function Team() {
  const { claims } = useAuth();
  const team = can(claims?.role, "team");
  const members = useQuery({ queryKey: ["members"], queryFn: () => get<Member[]>("/api/team/members?limit=100") });
  const invites = useQuery({ queryKey: ["invitations"], queryFn: () => get<Invitation[]>("/api/team/invitations?limit=100"), enabled: team });
  const setRole = useAction(({ id, role }: { id: string; role: string }) => patch(`/api/team/members/${id}`, { role }), [["members"]]);
  const remove = useAction((id: string) => del(`/api/team/members/${id}`), [["members"]]);
  // the owner hands over; they become an admin, which a fresh token carries
  const transfer = useAction((userId: string) => post("/api/team/transfer-ownership", { userId }), [["members"]], () => void refresh());
  const resend = useAction((id: string) => post(`/api/team/invitations/${id}/resend`), [["invitations"]]);
  const revoke = useAction((id: string) => del(`/api/team/invitations/${id}`), [["invitations"]]);
  // an admin manages admins, agents and viewers, never the owner (docs/team-and-billing.md)
  const mayEdit = (m: Member) => team && m.role !== "owner" && m.id !== claims?.sub;

  return (
    <section>
      <h1>Team</h1>
      {team && <WorkspaceSettings />}
      {team && <Invite />}
      <ErrorNote error={members.error ?? setRole.error ?? remove.error ?? transfer.error} />
      <div className="table-wrap">
        <table>
          <caption className="sr-only">Members</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Email</th>
              <th scope="col">Role</th>
              {team && <th scope="col">Actions</th>}
            </tr>
          </thead>
          <tbody>
            {members.data?.map((m) => (
              <tr key={m.id}>
                <td>{m.name}</td>
                <td className="break">{m.email}</td>
                <td>
                  {mayEdit(m) ? (
                    <Select label={`Role of ${m.name}`} name="role" value={m.role} onChange={(e) => setRole.mutate({ id: m.id, role: e.target.value })}>
                      {ROLES.map((r) => (
                        <option key={r}>{r}</option>
                      ))}
                    </Select>
                  ) : (
                    m.role
                  )}
                </td>
                {team && (
                  <td>
                    {mayEdit(m) && <ConfirmButton label={`Remove ${m.name}`} confirm="Yes, remove" onConfirm={() => remove.mutate(m.id)} />}
                    {can(claims?.role, "billing") && m.role === "admin" && (
                      <ConfirmButton label={`Make ${m.name} the owner`} confirm="Yes, transfer ownership" onConfirm={() => transfer.mutate(m.id)} />
                    )}
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {team && (
        <>
          <h2>Invitations</h2>
          <ErrorNote error={resend.error ?? revoke.error} />
          {invites.data?.length === 0 && <p className="empty">No pending invitations.</p>}
          <ul className="cards">
            {invites.data?.map((i) => (
              <li key={i.id} className="card">
                <p className="break">
                  <strong>{i.email}</strong> as {i.role} · {i.status} · expires {fmtDate(i.expiresAt)}
                </p>
                {i.status === "pending" && (
                  <div className="actions">
                    <button type="button" className="secondary" onClick={() => resend.mutate(i.id)}>
                      Resend to {i.email}
                    </button>
                    <ConfirmButton label={`Revoke ${i.email}`} confirm="Yes, revoke" onConfirm={() => revoke.mutate(i.id)} />
                  </div>
                )}
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}

function Invite() {
  const [email, setEmail] = useState("");
  const [role, setRole] = useState("agent");
  const invite = useAction(() => post<Invitation>("/api/team/invitations", { email, role }), [["invitations"]], () => setEmail(""));
  return (
    <form className="panel" onSubmit={(e: FormEvent) => (e.preventDefault(), invite.mutate())} noValidate>
      <h2>Invite a member</h2>
      <Field label="Email to invite" name="email" type="email" required value={email} onChange={(e) => setEmail(e.target.value)} error={invite.error} />
      <Select label="Role" name="role" value={role} onChange={(e) => setRole(e.target.value)} error={invite.error}>
        {ROLES.map((r) => (
          <option key={r}>{r}</option>
        ))}
      </Select>
      <ErrorNote error={invite.error} />
      {invite.data && (
        <p role="status">
          Invitation {invite.data.emailSent === false ? "saved, but the mail could not be sent: resend it" : `sent to ${invite.data.email}`}.
        </p>
      )}
      <button type="submit" disabled={invite.isPending}>
        Send invitation
      </button>
    </form>
  );
}
