import { useState } from 'react';
import { Button, Typography } from 'shared-ui';
import { isApiError } from 'shared-auth';
import { CodeForm } from './CodeForm.js';

type SendStatus = 'idle' | 'sending' | 'sent';

interface EmailVerifyProps {
  maskedEmail: string;
  send: () => Promise<void>;
  verify: (code: string) => Promise<void>;
  onVerified: () => void;
  onCancel: () => void;
  /** Sending failed: the flow goes to CHALLENGE_ERROR. */
  onSendFailed: () => void;
}

/** The email code screen: the masked email, the send button and its three labels, then the code. */
export function EmailVerify({
  maskedEmail,
  send,
  verify,
  onVerified,
  onCancel,
  onSendFailed,
}: EmailVerifyProps) {
  const [status, setStatus] = useState<SendStatus>('idle');
  const [notice, setNotice] = useState<string>();

  async function sendCode() {
    setStatus('sending');
    setNotice(undefined);
    try {
      await send();
      setStatus('sent');
    } catch (error) {
      // A code went out less than 30 seconds ago: that one still works, so say so instead of failing.
      if (isApiError(error) && error.status === 429) {
        setStatus('idle');
        setNotice(error.message);
        return;
      }
      onSendFailed();
    }
  }

  const label =
    status === 'idle'
      ? 'Send authentication code'
      : status === 'sending'
        ? 'Sending authentication code'
        : `Authentication code sent to ${maskedEmail}`;

  return (
    <section aria-labelledby="stepup-email-title">
      <Typography.Title level={2} id="stepup-email-title" style={{ fontSize: 22 }}>
        Verify with Email
      </Typography.Title>
      <p>An authentication code will be sent to {maskedEmail}.</p>
      {/* A new button per state: antd animates its loading icon out, and when that transition's end event never
          comes (seen in Chromium under load) the spinner stayed in the 'sent' button, and in its accessible name. */}
      <Button
        key={status}
        onClick={() => void sendCode()}
        disabled={status !== 'idle'}
        loading={status === 'sending'}
      >
        {label}
      </Button>
      {notice ? (
        <div role="status" style={{ marginTop: 8 }}>
          {notice}
        </div>
      ) : null}
      <CodeForm factor="email" verify={verify} onVerified={onVerified} onCancel={onCancel} />
    </section>
  );
}
