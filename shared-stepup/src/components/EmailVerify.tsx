import { useEffect, useState } from 'react';
import { Button, Flex, Typography } from 'shared-ui';
import { useCall } from 'shared-auth/async';
import { RESEND_SECONDS, resendLabel, useCountdown } from '../hooks/useCountdown.js';
import { CodeForm } from './CodeForm.js';

interface EmailVerifyProps {
  maskedEmail: string;
  /** The heading's and the code field's ids: the screens move the focus to them. */
  titleId: string;
  codeId: string;
  send: (signal: AbortSignal) => Promise<void>;
  verify: (signal: AbortSignal, code: string) => Promise<void>;
  onVerified: () => void;
  onCancel: () => void;
  /** Sending failed: the flow goes to CHALLENGE_ERROR. */
  onSendFailed: () => void;
}

/**
 * The email code screen: the masked email, the send button and its three labels, then the code. Once a code is
 * sent, 'Resend' counts 30 seconds down like the enrolment's, then sends another.
 */
export function EmailVerify({
  maskedEmail,
  titleId,
  codeId,
  send,
  verify,
  onVerified,
  onCancel,
  onSendFailed,
}: EmailVerifyProps) {
  const sending = useCall(send);
  const [sent, setSent] = useState(false);
  const [notice, setNotice] = useState<string>();
  const { remaining, start } = useCountdown();

  // The send button is disabled once the code is out: the focus goes on to the code field instead of being lost.
  useEffect(() => {
    if (sent) document.getElementById(codeId)?.focus();
  }, [sent, codeId]);

  async function sendCode() {
    setNotice(undefined);
    const outcome = await sending.run();
    if (outcome.status === 'success') {
      setSent(true);
      start(RESEND_SECONDS);
    } else if (outcome.status === 'error') {
      // A code went out less than 30 seconds ago: that one still works, so say so (and how long to wait).
      if (outcome.failure.kind === 'throttled') {
        setNotice(outcome.failure.message);
        start(outcome.failure.retryAfterSeconds ?? 0);
      } else onSendFailed();
    }
  }

  const pending = sending.status === 'pending';
  const phase = pending ? 'sending' : sent ? 'sent' : 'idle';
  const label =
    phase === 'idle'
      ? 'Send authentication code'
      : phase === 'sending'
        ? 'Sending authentication code'
        : `Authentication code sent to ${maskedEmail}`;

  return (
    <section aria-labelledby={titleId}>
      <Typography.Title level={2} id={titleId} tabIndex={-1} style={{ fontSize: 22 }}>
        Verify with Email
      </Typography.Title>
      <p>An authentication code will be sent to {maskedEmail}.</p>
      <Flex gap={12} wrap>
        {/* A new button per state: antd animates its loading icon out, and when that transition's end event never
            comes (seen in Chromium under load) the spinner stayed in the 'sent' button, and in its accessible name. */}
        <Button
          key={phase}
          onClick={() => void sendCode()}
          disabled={phase !== 'idle' || remaining > 0}
          loading={pending}
        >
          {label}
        </Button>
        {sent ? (
          <Button onClick={() => void sendCode()} disabled={pending || remaining > 0}>
            {resendLabel(remaining)}
          </Button>
        ) : null}
      </Flex>
      {notice ? (
        <div role="status" style={{ marginTop: 8 }}>
          {notice}
        </div>
      ) : null}
      <CodeForm factor="email" codeId={codeId} verify={verify} onVerified={onVerified} onCancel={onCancel} />
    </section>
  );
}
