import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { Mailbox } from '../../mail/mailbox.js';
import { noMailer, type Mailer } from '../../mail/mailer.js';
import { smtpMailer } from '../../mail/smtp.js';
import { escapeHtml, page } from '../../oidc/html.js';

declare module 'fastify' {
  interface FastifyInstance {
    mailer: Mailer;
  }
}

async function mailboxPage(mailbox: Mailbox): Promise<string> {
  const messages = await mailbox.list(100);
  const items = messages
    .map(
      (message) => `<article aria-labelledby="m${message.id}">
<h2 id="m${message.id}">${escapeHtml(message.subject)}</h2>
<p class="muted">To ${escapeHtml(message.to)} · <time datetime="${escapeHtml(message.date)}">${escapeHtml(
        new Date(message.date).toUTCString(),
      )}</time></p>
<pre>${escapeHtml(message.text)}</pre>
</article>`,
    )
    .join('\n');
  return page(
    'Mailbox · My Profile',
    `<h1>Mailbox</h1>
<p class="muted">Email the portal sent (development only: never with an https PUBLIC_URL; newest first). As JSON: <a href="/dev/mailbox/messages">/dev/mailbox/messages</a>. <a href="/dev/mailbox">Refresh</a></p>
${messages.length === 0 ? '<p>No messages yet.</p>' : items}`,
    '<style>main{max-width:48rem}article{border-top:1px solid #d9d9d9;padding-top:.5rem}h2{font-size:1.1rem;margin:.5rem 0 0}pre{white-space:pre-wrap;font:inherit;background:#fafafa;padding:.5rem;border-radius:4px}</style>',
  );
}

/**
 * Mail. Provides `app.mailer`, the mail transport (closed with the app), and the /dev/mailbox pages when the
 * mailbox is on. Depends on: storage (the mailbox's messages).
 *
 * The transport: SMTP when SMTP_URL is set; otherwise the built-in mailbox with its pages at /dev/mailbox,
 * where it may exist (config.devMailbox: the development default or DEV_MAILBOX=true, embedded mode, never with
 * https): it shows every user's codes to anyone. Otherwise none, and email codes are refused.
 */
export default fp(
  async function mailPlugin(app: FastifyInstance) {
    const { config } = app;
    let mailer: Mailer;
    if (config.SMTP_URL) {
      mailer = smtpMailer(config.SMTP_URL, config.MAIL_FROM);
      app.log.info({ host: new URL(config.SMTP_URL).host }, 'email: sent through SMTP');
    } else if (config.devMailbox) {
      const mailbox = new Mailbox(app.storage.mailbox, app.now);
      mailer = mailbox;
      app.get('/dev/mailbox', async (_request, reply) =>
        reply
          .header('Cache-Control', 'no-store')
          .type('text/html; charset=utf-8')
          .send(await mailboxPage(mailbox)),
      );
      app.get('/dev/mailbox/messages', async (_request, reply) => {
        reply.header('Cache-Control', 'no-store');
        return (await mailbox.list(100)).map(({ to, subject, text, date }) => ({ to, subject, text, date }));
      });
      app.log.info(`email: kept in the built-in mailbox, ${config.PUBLIC_URL}/dev/mailbox`);
    } else {
      mailer = noMailer;
      // In Okta mode the org sends its own codes; what is lost here is the account notices.
      app.log.warn(
        config.identityBackend === 'okta'
          ? 'email: no transport (set SMTP_URL); account notices cannot be sent'
          : 'email: no transport (set SMTP_URL); email verification codes and account notices cannot be sent',
      );
    }
    app.decorate('mailer', mailer);
    app.addHook('onClose', async () => mailer.close());
  },
  { name: 'mail', dependencies: ['storage'] },
);
