/** One email the portal sends. Plain text only: codes and short notices. */
export interface MailMessage {
  to: string;
  subject: string;
  text: string;
}

/** A way to deliver email: the embedded default's built-in mailbox, or SMTP (SMTP_URL). */
export interface Mailer {
  readonly transport: 'mailbox' | 'smtp' | 'none';
  send(message: MailMessage): Promise<void>;
  close(): Promise<void>;
}

/** Raised when a message could not be handed to the transport; callers answer 502 or show a clear text. */
export class MailError extends Error {
  override readonly name = 'MailError';
}

/** Okta mode without SMTP_URL: nothing can deliver email, so email codes are refused with a clear reason. */
export const noMailer: Mailer = {
  transport: 'none',
  async send() {
    throw new MailError('This server cannot send email: set SMTP_URL to an SMTP server.');
  },
  async close() {},
};
