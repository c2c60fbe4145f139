import nodemailer, { type Transporter } from "nodemailer";
import type { EmailMessage } from "./notifier.ts";

/** Mail over SMTP with nodemailer: a plain-text and an HTML part. */
export class SmtpMailer {
  private transport: Transporter;

  constructor(
    url: string,
    private from: string,
  ) {
    this.transport = nodemailer.createTransport({ url, connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 20_000 });
  }

  /** Resolves when the server accepted the message. */
  async send(m: EmailMessage): Promise<void> {
    await this.transport.sendMail({ from: this.from, to: m.to, subject: m.subject, text: m.text, html: m.html });
  }

  close(): void {
    this.transport.close();
  }
}
