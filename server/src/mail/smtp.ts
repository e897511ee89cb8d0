import nodemailer from 'nodemailer';
import { MailError, type Mailer, type MailMessage } from './mailer.js';

/** Real email through an SMTP server (SMTP_URL, e.g. smtp://127.0.0.1:2525 or smtps://user:pass@host:465). */
export function smtpMailer(url: string, from: string): Mailer {
  const transporter = nodemailer.createTransport(url);
  return {
    transport: 'smtp',
    async send(message: MailMessage) {
      try {
        await transporter.sendMail({ from, to: message.to, subject: message.subject, text: message.text });
      } catch (error) {
        throw new MailError(`The SMTP server did not accept the message: ${(error as Error).message}`, {
          cause: error,
        });
      }
    },
    async close() {
      transporter.close();
    },
  };
}
