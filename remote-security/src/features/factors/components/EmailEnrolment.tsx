import { useCallback, useEffect, useId, useRef, useState } from 'react';
import { Button, Flex } from 'shared-ui';
import { useApiClient, useAuth } from 'shared-auth';
import { useCall } from 'shared-auth/async';
import { CodeField, RESEND_SECONDS, useCountdown } from 'shared-stepup';
import { enrollEmail } from '../api/factorsApi.js';
import { useCodeActivation } from '../hooks/useCodeActivation.js';
import { sendCodeLabel } from '../model/enrolment.js';
import type { ReauthenticationGuard } from '../../../lib/reauthentication/useConfirmItsYou.js';

interface EmailEnrolmentProps {
  maskedEmail: string;
  /** NOT_STARTED before the first send, PENDING_ACTIVATION after it. */
  pending: boolean;
  /** Sends the first code as it shows: the holder pressed Send Code before 'Sign in again'. */
  sendOnShow?: boolean;
  onCodeSent: () => void;
  onActivated: (enrolledDate: string | null) => void;
  onFailed: (error: unknown) => void;
  /** A first factor may need the password again before its code is sent or accepted ("Confirm it's you"). */
  guard: ReauthenticationGuard;
}

/** Email enrolment: send a code to the masked email (30 s resend countdown), then enter it. */
export function EmailEnrolment({
  maskedEmail,
  pending,
  sendOnShow = false,
  onCodeSent,
  onActivated,
  onFailed,
  guard,
}: EmailEnrolmentProps) {
  const id = useId();
  const { user } = useAuth();
  const client = useApiClient();
  const { remaining, start } = useCountdown();
  const [sent, setSent] = useState(false);
  const sending = useCall(
    useCallback(
      (signal: AbortSignal) => guard(() => enrollEmail(client, user.sub, { signal })),
      [guard, client, user.sub],
    ),
  );
  const sendPending = sending.status === 'pending';
  const { code, setCode, verifying, error, verify } = useCodeActivation({
    factor: 'email',
    wrongCodeMessage: 'Invalid verification code',
    onActivated,
    onFailed,
    guard,
  });
  const [notice, setNotice] = useState<string>();

  async function send() {
    setNotice(undefined);
    const outcome = await sending.run();
    if (outcome.status === 'success') {
      setSent(true);
      start(RESEND_SECONDS);
      onCodeSent();
    } else if (outcome.status === 'error') {
      // Too soon after the last code: the server's text, and the button waits out its Retry-After.
      if (outcome.failure.kind === 'throttled') {
        setNotice(outcome.failure.message);
        start(outcome.failure.retryAfterSeconds ?? 0);
      } else onFailed(outcome.error);
    }
  }

  // Once per set-up shown, whatever renders follow.
  const sentOnShow = useRef(false);
  useEffect(() => {
    if (!sendOnShow || sentOnShow.current) return;
    sentOnShow.current = true;
    void send();
  });

  return (
    <div style={{ marginTop: 16 }}>
      <h3 style={{ fontSize: 16, margin: '0 0 4px' }}>Step 1: Send a code</h3>
      <p style={{ margin: '0 0 8px' }}>We will send a verification code to {maskedEmail}.</p>
      {/* A new button once sending ends: antd's loading icon leaves by a transition whose end event can go missing
          under load, which left a spinner (and 'loading' in the button's name) in the Resend button. */}
      <Button
        key={sendPending ? 'sending' : 'ready'}
        onClick={() => void send()}
        disabled={sendPending || remaining > 0}
        loading={sendPending}
      >
        {sendCodeLabel(sent, remaining)}
      </Button>
      {notice ? (
        <div role="status" style={{ marginTop: 8 }}>
          {notice}
        </div>
      ) : null}
      {pending ? (
        <form onSubmit={(event) => void verify(event)} noValidate style={{ maxWidth: 420, marginTop: 16 }}>
          <h3 style={{ fontSize: 16, margin: '0 0 4px' }}>Step 2: Enter the code</h3>
          <CodeField
            id={`${id}-code`}
            label="Verification code"
            code={code}
            onChange={setCode}
            disabled={verifying}
            maxLength={10}
            error={error}
          />
          <Flex gap={12} style={{ marginTop: 12 }}>
            <Button type="primary" htmlType="submit" disabled={code.trim() === '' || verifying}>
              Verify
            </Button>
          </Flex>
        </form>
      ) : null}
    </div>
  );
}
