import type { AppDeps } from "../../deps.ts";
import type { RoutedApp } from "../../http/routed-app.ts";
import { ok } from "../../http/envelope.ts";
import type { SimControl } from "../../network/sim/control.ts";
import { sessionIdParams } from "../sessions/model.ts";
import { absentBody, failBody, inboundBody, logoutBody, receiptBody, scanBody } from "./model.ts";
import { SimService } from "./service.ts";
import { envelopeResponses } from "../../http/openapi.ts";
import { simInboundDoc } from "../docs/schemas.ts";
import { absentDoc, failDoc, logoutDoc, receiptDoc, scanDoc } from "./docs.ts";
import { simGroupRoutes } from "./routes-groups.ts";

const tags = ["sim"];

/** The simulated network's side (docs/network-drivers.md), only mounted while the server runs with `--network sim`. */
export function simRoutes(deps: AppDeps, sim: SimControl) {
  const service = new SimService(deps, sim);
  return (app: RoutedApp) => app
    .use(simGroupRoutes(deps, sim))
    .post(
      "/api/sim/sessions/:id/scan",
      async ({ auth, params, body }) => {
        await service.scan(auth.workspaceId, params.id, body.phoneNumber);
        return ok({ sessionId: params.id, phoneNumber: body.phoneNumber }, "QR code scanned; the session is connecting");
      },
      { jwt: "manage", params: sessionIdParams, body: scanBody, detail: { summary: "Sim: a phone scans the QR code", tags, responses: envelopeResponses({ data: scanDoc, errors: [409] }) } },
    )
    .post(
      "/api/sim/sessions/:id/inbound",
      async ({ auth, params, body }) => {
        const r = await service.inbound(auth.workspaceId, params.id, body);
        return ok(r, r.messageId ? "Inbound message received and stored" : "Inbound group message received and dropped: the session's groups setting is off");
      },
      {
        jwt: "manage",
        params: sessionIdParams,
        body: inboundBody,
        detail: { summary: "Sim: a contact sends a message; answers once Parley stored it (data.messageId)", tags, responses: envelopeResponses({ data: simInboundDoc, errors: [409] }) },
      },
    )
    .post(
      "/api/sim/sessions/:id/receipt",
      async ({ auth, params, body }) =>
        ok({ networkMessageId: await service.receipt(auth.workspaceId, params.id, body.messageId, body.status), status: body.status }, "Receipt sent"),
      { jwt: "manage", params: sessionIdParams, body: receiptBody, detail: { summary: "Sim: a delivery or read receipt", tags, responses: envelopeResponses({ data: receiptDoc }) } },
    )
    .post(
      "/api/sim/sessions/:id/logout",
      async ({ auth, params, body }) => {
        const reason = body?.reason ?? "logged_out";
        await service.logout(auth.workspaceId, params.id, reason);
        return ok({ sessionId: params.id, reason }, "The network ended the link");
      },
      { jwt: "manage", params: sessionIdParams, body: logoutBody, detail: { summary: "Sim: network-side logout", tags, responses: envelopeResponses({ data: logoutDoc, errors: [409] }) } },
    )
    .post(
      "/api/sim/sessions/:id/fail",
      async ({ auth, params, body }) => {
        await service.fail(auth.workspaceId, params.id, body.count, body.code);
        return ok({ sessionId: params.id, count: body.count, code: body.code ?? "send_failed" }, "The next sends will fail");
      },
      { jwt: "manage", params: sessionIdParams, body: failBody, detail: { summary: "Sim: make the next sends fail", tags, responses: envelopeResponses({ data: failDoc, errors: [409] }) } },
    )
    .post(
      "/api/sim/absent",
      async ({ body }) => {
        await sim.markAbsent(body.phones);
        return ok({ phones: body.phones }, "These numbers are not on the sim network");
      },
      { jwt: "manage", body: absentBody, detail: { summary: "Sim: numbers that are not on the network (every other number is)", tags, responses: envelopeResponses({ data: absentDoc }) } },
    );
}
