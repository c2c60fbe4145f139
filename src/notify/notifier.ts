/** What modules use to reach people: mail (verification, reset, invitations) and mobile codes. */
export interface EmailMessage {
  to: string;
  subject: string;
  text: string;
  html: string;
  /** what the mail is for, recorded with it: verification, reset, invitation, alert, ... */
  kind: string;
}

export interface MobileMessage {
  /** digits with country code, no plus */
  to: string;
  text: string;
  kind: string;
}

export interface Notifier {
  /** Sends (or records, on the log channel) a mail; resolves when the channel accepted it. */
  sendEmail(message: EmailMessage): Promise<void>;
  /** Sends a mobile code over the configured channel (log, session, http). */
  sendMobile(message: MobileMessage): Promise<void>;
}

/** A channel refused or could not be reached; the attempt is already recorded as failed. */
export class NotifyError extends Error {
  constructor(
    readonly channel: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = "NotifyError";
  }
}
