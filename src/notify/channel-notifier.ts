import { sendOverHttp, sendOverSession } from "./mobile-channels.ts";
import { NotifyError, type EmailMessage, type MobileMessage, type Notifier } from "./notifier.ts";
import { recordNotification } from "./outbox.ts";
import { SmtpMailer } from "./smtp.ts";
import type { NotifyChannel } from "./table.ts";
import type { AppDeps } from "../deps.ts";

/** The part of the app's deps the notifier needs (it is built before the rest). */
export type NotifierDeps = Pick<AppDeps, "config" | "db" | "clock" | "log" | "network">;

/**
 * The notifier (docs/authentication.md): mail over SMTP when `smtpUrl` is set, else the `log` channel; mobile codes
 * over `log`, `session` or `http`. Every attempt is recorded; failures reject with NotifyError.
 */
export class ChannelNotifier implements Notifier {
  private smtp: SmtpMailer | null;

  constructor(private d: NotifierDeps) {
    const { config } = d;
    if (config.mobileChannel === "session" && !config.mobileSession) throw new Error("mobileSession must be a session id (see `parley sessions list`) when mobileChannel is session");
    if (config.mobileChannel === "http" && !config.mobileHttpUrl) throw new Error("mobileHttpUrl is required when mobileChannel is http");
    this.smtp = config.smtpUrl ? new SmtpMailer(config.smtpUrl, config.mailFrom) : null;
  }

  /** The channel mail goes through. */
  get emailChannel(): NotifyChannel {
    return this.smtp ? "smtp" : "log";
  }

  async sendEmail(m: EmailMessage): Promise<void> {
    const smtp = this.smtp;
    await this.deliver("email", this.emailChannel, m.kind, m.to, m.subject, m.text, smtp ? () => smtp.send(m) : null);
  }

  async sendMobile(m: MobileMessage): Promise<void> {
    const { config, db, network } = this.d;
    const channel = config.mobileChannel;
    const send =
      channel === "session"
        ? () => sendOverSession(db, network, config.mobileSession!, m)
        : channel === "http"
          ? () => sendOverHttp(config.mobileHttpUrl!, m)
          : null;
    await this.deliver("mobile", channel, m.kind, m.to, null, m.text, send);
  }

  /** Closes the SMTP connection pool. */
  close(): void {
    this.smtp?.close();
  }

  private async deliver(
    medium: "email" | "mobile",
    channel: NotifyChannel,
    kind: string,
    recipient: string,
    subject: string | null,
    body: string,
    send: (() => Promise<void>) | null,
  ): Promise<void> {
    const { db, clock, log } = this.d;
    const base = { medium, channel, kind, recipient, subject, body };
    if (!send) {
      await recordNotification(db, clock.now().getTime(), { ...base, status: "sent" });
      log.info("notification stored in the outbox (read it with `parley outbox`)", { medium, kind, to: recipient });
      return;
    }
    try {
      await send();
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      await recordNotification(db, clock.now().getTime(), { ...base, status: "failed", error: message });
      log.warn("notification failed", { medium, channel, kind, to: recipient, error: message });
      throw new NotifyError(channel, message, { cause: err });
    }
    await recordNotification(db, clock.now().getTime(), { ...base, status: "sent" });
    log.info("notification sent", { medium, channel, kind, to: recipient });
  }
}
