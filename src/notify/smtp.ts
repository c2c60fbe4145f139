import type { Transporter } from "nodemailer";
import type { EmailMessage } from "./notifier.ts";

/**
 * Mail over SMTP with nodemailer: a plain-text and an HTML part. nodemailer is loaded with the
 * first mail, not at start (cold start and idle memory, issue 13).
 */
export class SmtpMailer {
  private transport: Transporter | undefined;

  constructor(
    private url: string,
    private from: string,
  ) {}

  /** Resolves when the server accepted the message. */
  async send(m: EmailMessage): Promise<void> {
    if (!this.transport) {
      const { default: nodemailer } = await import("nodemailer");
      this.transport ??= nodemailer.createTransport({ url: this.url, connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 20_000 });
    }
    await this.transport.sendMail({ from: this.from, to: m.to, subject: m.subject, text: m.text, html: m.html });
  }

  close(): void {
    this.transport?.close();
  }
}
