import type { EmailMessage, MobileMessage, Notifier } from "../../../src/notify/notifier.ts";

/** A notifier that keeps what it is given (and can be told to fail), injected into the test runtime. */
export class Mailbox implements Notifier {
  readonly mails: EmailMessage[] = [];
  failing = false;
  async sendEmail(m: EmailMessage): Promise<void> {
    if (this.failing) throw new Error("smtp down");
    this.mails.push(m);
  }
  async sendMobile(_m: MobileMessage): Promise<void> {}
  /** The invitation token in the last mail to an address. */
  tokenFor(email: string): string {
    const mail = this.mails.findLast((m) => m.to === email);
    const token = mail?.text.match(/token=([A-Za-z0-9_-]+)/)?.[1];
    if (!token) throw new Error(`no invitation mail to ${email}`);
    return token;
  }
}
