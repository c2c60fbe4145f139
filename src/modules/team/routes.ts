import type { AppDeps } from "../../deps.ts";
import type { RoutedApp } from "../../http/routed-app.ts";
import { ok, pageQuery, paged } from "../../http/envelope.ts";
import { acceptInvitation, invite, listInvitations, resendInvitation, revokeInvitation } from "./invitations.ts";
import { acceptBody, changeRoleBody, idParams, inviteBody, transferBody } from "./model.ts";
import { changeRole, listTeam, removeMember, transferOwnership } from "./service.ts";
import { envelopeResponses } from "../../http/openapi.ts";
import { acceptedDoc, invitationDoc, memberDoc, sentInvitationDoc, transferDoc } from "./docs.ts";

const userIdOf = (auth: { kind: string; userId?: string }) => (auth.kind === "user" ? auth.userId! : null);

/** /api/team: members, roles (docs/team-and-billing.md), invitations and ownership transfer. */
export function teamRoutes(deps: AppDeps) {
  return (app: RoutedApp) => app
    .post(
      "/api/team/invitations/accept",
      async ({ body, set }) => {
        set.status = 201;
        return ok(await acceptInvitation(deps, body), "Invitation accepted: you can log in now");
      },
      { body: acceptBody, detail: { tags: ["team"], summary: "Accept an invitation (public: the token is the credential); creates a verified member", responses: envelopeResponses({ status: 201, data: acceptedDoc, errors: [403, 409] }) } },
    )
    .get(
      "/api/team/members",
      async ({ auth, query }) => {
        const { items, total } = await listTeam(deps, auth.workspaceId, query.page, query.limit);
        return paged(items, query.page, query.limit, total);
      },
      { jwt: "read", query: pageQuery, detail: { tags: ["team"], summary: "List the members of the workspace", responses: envelopeResponses({ data: memberDoc, list: "page" }) } },
    )
    .patch(
      "/api/team/members/:id",
      async ({ auth, params, body }) => ok(await changeRole(deps, auth.workspaceId, params.id, body.role), "Role changed"),
      { jwt: "team", params: idParams, body: changeRoleBody, detail: { tags: ["team"], summary: "Change a member's role (not the owner's)", responses: envelopeResponses({ data: memberDoc, errors: [409] }) } },
    )
    .delete(
      "/api/team/members/:id",
      async ({ auth, params }) => {
        await removeMember(deps, auth.workspaceId, params.id);
        return ok(undefined, "Member removed");
      },
      { jwt: "team", params: idParams, detail: { tags: ["team"], summary: "Remove a member (not the owner)", responses: envelopeResponses({ data: null, errors: [409] }) } },
    )
    .post(
      "/api/team/transfer-ownership",
      async ({ auth, body }) => ok(await transferOwnership(deps, auth, body.userId), "Ownership transferred"),
      { jwt: "billing", body: transferBody, detail: { tags: ["team"], summary: "Make another member the owner (owner only); the old owner becomes admin", responses: envelopeResponses({ data: transferDoc, errors: [404, 409] }) } },
    )
    .get(
      "/api/team/invitations",
      async ({ auth, query }) => {
        const { items, total } = await listInvitations(deps, auth.workspaceId, query.page, query.limit);
        return paged(items, query.page, query.limit, total);
      },
      { jwt: "team", query: pageQuery, detail: { tags: ["team"], summary: "List open invitations (pending and expired)", responses: envelopeResponses({ data: invitationDoc, list: "page" }) } },
    )
    .post(
      "/api/team/invitations",
      async ({ auth, body, set }) => {
        set.status = 201;
        const inv = await invite(deps, auth.workspaceId, body, userIdOf(auth));
        return ok(inv, inv.emailSent ? "Invitation sent" : "Invitation created, but the mail could not be sent: resend it");
      },
      { jwt: "team", body: inviteBody, detail: { tags: ["team"], summary: "Invite an email with a role (mail with an accept link, valid 7 days)", responses: envelopeResponses({ status: 201, data: sentInvitationDoc, errors: [409] }) } },
    )
    .post(
      "/api/team/invitations/:id/resend",
      async ({ auth, params }) => {
        const inv = await resendInvitation(deps, auth.workspaceId, params.id);
        return ok(inv, inv.emailSent ? "Invitation sent again" : "The mail could not be sent");
      },
      { jwt: "team", params: idParams, detail: { tags: ["team"], summary: "Send an invitation again with a new link and expiry", responses: envelopeResponses({ data: sentInvitationDoc, errors: [409] }) } },
    )
    .delete(
      "/api/team/invitations/:id",
      async ({ auth, params }) => {
        await revokeInvitation(deps, auth.workspaceId, params.id);
        return ok(undefined, "Invitation revoked");
      },
      { jwt: "team", params: idParams, detail: { tags: ["team"], summary: "Revoke an invitation", responses: envelopeResponses({ data: null, errors: [409] }) } },
    );
}
