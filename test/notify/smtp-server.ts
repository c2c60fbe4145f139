import { SMTPServer } from "smtp-server";

export interface ReceivedMail {
  from: string;
  to: string[];
  raw: string;
}

/** A real SMTP server on a free loopback port that keeps what it receives. */
export async function startSmtpServer(): Promise<{ url: string; mails: ReceivedMail[]; close(): Promise<void> }> {
  const mails: ReceivedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (c: Buffer) => chunks.push(c));
      stream.on("end", () => {
        mails.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString("utf8"),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.server.address() as { port: number }).port;
  return { url: `smtp://127.0.0.1:${port}`, mails, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** The decoded parts of a MIME message by content type (quoted-printable and base64 undone). */
export function mimeParts(raw: string): Record<string, string> {
  const boundary = raw.match(/boundary="?([^";\r\n]+)"?/)?.[1];
  const parts = boundary ? raw.split(`--${boundary}`).slice(1, -1) : [raw];
  const out: Record<string, string> = {};
  for (const part of parts) {
    const [head = "", ...rest] = part.replace(/^\r?\n/, "").split(/\r?\n\r?\n/);
    const body = rest.join("\n\n");
    const type = head.match(/content-type:\s*([^;\r\n]+)/i)?.[1]?.trim().toLowerCase() ?? "text/plain";
    const enc = head.match(/content-transfer-encoding:\s*(\S+)/i)?.[1]?.toLowerCase();
    out[type] =
      enc === "quoted-printable"
        ? Buffer.from(body.replace(/=\r?\n/g, "").replace(/=([0-9A-F]{2})/gi, (_, h) => String.fromCharCode(parseInt(h, 16))), "latin1").toString("utf8")
        : enc === "base64"
          ? Buffer.from(body.replace(/\s+/g, ""), "base64").toString("utf8")
          : body;
  }
  return out;
}
