import { useEffect, useState } from 'react';
import { Button, Flex, Typography } from 'shared-ui';
import { useCall } from 'shared-auth/async';
import { passkeyFailureMessage, PASSKEY_STEP_UP_TEXTS as TEXTS } from '../model/passkey.js';
import { supportsWebAuthn } from '../webauthn/webauthn.js';

interface PasskeyVerifyProps {
  titleId: string;
  /** The button's id: the screens move the focus to it. */
  buttonId: string;
  /** Options from the server, the browser's ceremony, the answer to the server; rejects when any step fails. */
  verify: (signal: AbortSignal) => Promise<void>;
  onVerified: () => void;
  onCancel: () => void;
}

/**
 * 'Use your passkey': the holder starts the browser's passkey check with the button (browsers let a page ask for a
 * passkey only from a click). Success ends the step-up like a verified code; a failure says why under the button.
 */
export function PasskeyVerify({ titleId, buttonId, verify, onVerified, onCancel }: PasskeyVerifyProps) {
  const [error, setError] = useState<string>();
  const checking = useCall(verify);
  const supported = supportsWebAuthn();
  const pending = checking.status === 'pending';
  const errorId = `${buttonId}-error`;
  const noteId = `${buttonId}-note`;

  // After a failure, back to the button (a new one: see below), to try again at once.
  useEffect(() => {
    if (error) document.getElementById(buttonId)?.focus();
  }, [error, buttonId]);

  async function start() {
    if (pending) return;
    setError(undefined);
    const outcome = await checking.run();
    if (outcome.status === 'success') onVerified();
    else if (outcome.status === 'error') setError(passkeyFailureMessage(outcome.error));
  }

  return (
    <section aria-labelledby={titleId}>
      <Typography.Title level={2} id={titleId} tabIndex={-1} style={{ fontSize: 22 }}>
        {TEXTS.title}
      </Typography.Title>
      <p>{TEXTS.text}</p>
      {supported ? null : <p id={noteId}>{TEXTS.unsupported}</p>}
      {error ? (
        <div id={errorId} role="alert" style={{ color: '#a8071a', marginBottom: 8 }}>
          {error}
        </div>
      ) : null}
      <Flex gap={12} style={{ marginTop: 8 }}>
        <Button onClick={onCancel}>Cancel</Button>
        {/* A new button once the check ends: antd's loading icon can stay behind (and in the name) otherwise. */}
        <Button
          key={pending ? 'checking' : 'ready'}
          id={buttonId}
          type="primary"
          loading={pending}
          disabled={!supported}
          aria-describedby={supported ? (error ? errorId : undefined) : noteId}
          onClick={() => void start()}
        >
          {TEXTS.button}
        </Button>
      </Flex>
    </section>
  );
}
