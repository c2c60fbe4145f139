import type { Logger } from "../log.ts";
import type { EmailMessage, MobileMessage, Notifier } from "./notifier.ts";

/** The simplest channel: everything goes to the log. The auth module replaces it with the full notifier. */
export class LogNotifier implements Notifier {
  readonly sent: (EmailMessage | MobileMessage)[] = [];
  constructor(private log: Logger) {}
  async sendEmail(m: EmailMessage): Promise<void> {
    this.sent.push(m);
    this.log.info("mail (log channel)", { to: m.to, subject: m.subject, kind: m.kind });
  }
  async sendMobile(m: MobileMessage): Promise<void> {
    this.sent.push(m);
    this.log.info("mobile message (log channel)", { to: m.to, kind: m.kind });
  }
}
