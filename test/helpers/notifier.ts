import type { EmailMessage, MobileMessage, Notifier } from "../../src/notify/notifier.ts";

/** A notifier that keeps what it was asked to send, for tests that read mail back. */
export class RecordingNotifier implements Notifier {
  readonly emails: EmailMessage[] = [];
  readonly mobile: MobileMessage[] = [];
  async sendEmail(m: EmailMessage): Promise<void> {
    this.emails.push(m);
  }
  async sendMobile(m: MobileMessage): Promise<void> {
    this.mobile.push(m);
  }
}
