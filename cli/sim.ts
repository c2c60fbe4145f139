import { writeOut } from "../src/node/tty.ts";
import type { Command } from "commander";
import { openOperator, operatorOptions, ownerToken, requireApi, runOperator, type OperatorFlags } from "./operator.ts";
import { findSession } from "./sessions.ts";

/** Calls one sim route (docs/network-drivers.md) for a session named on the command line. */
async function simCall(ref: string, flags: OperatorFlags, action: string, body: unknown): Promise<any> {
  const op = await openOperator(flags);
  const s = await findSession(op, ref, flags.workspace);
  return { session: s, body: await requireApi(op, await ownerToken(op, s.workspaceId), "POST", `/api/sim/sessions/${s.id}/${action}`, body) };
}

/** `parley sim scan|inbound|logout`: play the network's side against a server started with --network sim. */
export function simCommand(program: Command): void {
  const sim = program.command("sim").description("act as the simulated network (server started with --network sim)");

  operatorOptions(sim.command("scan <session>").description("a phone scans the session's QR code"))
    .option("--phone <digits>", "the phone's number, country code first", "919800000001")
    .action((ref: string, flags: OperatorFlags & { phone: string }) =>
      runOperator(async () => {
        const { session } = await simCall(ref, flags, "scan", { phoneNumber: flags.phone });
        writeOut(`${session.name}: scanned by +${flags.phone}\n`);
      }),
    );

  operatorOptions(sim.command("inbound <session>").description("a contact sends a message to the session"))
    .requiredOption("--from <digits>", "the contact's number, country code first")
    .option("--text <text>", "message text", "Hello from the sim network")
    .action((ref: string, flags: OperatorFlags & { from: string; text: string }) =>
      runOperator(async () => {
        const { session, body } = await simCall(ref, flags, "inbound", { from: flags.from, type: "text", text: flags.text });
        writeOut(`${session.name}: inbound ${body.data.networkMessageId} from +${flags.from}\n`);
      }),
    );

  operatorOptions(sim.command("logout <session>").description("the network ends the session's link"))
    .option("--reason <reason>", "logged_out, replaced or banned", "logged_out")
    .action((ref: string, flags: OperatorFlags & { reason: string }) =>
      runOperator(async () => {
        const { session } = await simCall(ref, flags, "logout", { reason: flags.reason });
        writeOut(`${session.name}: logged out by the network (${flags.reason})\n`);
      }),
    );
}
