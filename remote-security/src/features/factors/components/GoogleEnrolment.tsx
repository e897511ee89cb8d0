import { useCallback, useEffect, useId, useRef, useState } from 'react';
import { Button, Flex, Modal, QRCode, Spin } from 'shared-ui';
import { useApiClient, useAuth } from 'shared-auth';
import { useCall } from 'shared-auth/async';
import { CodeField } from 'shared-stepup';
import { enrollGoogle } from '../api/factorsApi.js';
import { useCodeActivation } from '../hooks/useCodeActivation.js';
import { APP_STORE_URL, PLAY_STORE_URL } from './texts.js';
import type { ReauthenticationGuard } from '../../../lib/reauthentication/useConfirmItsYou.js';

export interface GoogleEnrolmentProps {
  onActivated: (enrolledDate: string | null) => void;
  onFailed: (error: unknown) => void;
  /** A first factor may need the password again before it is set up or activated ("Confirm it's you"). */
  guard: ReauthenticationGuard;
}

/** The secret in groups of four, as authenticator apps show and accept it. */
function grouped(secret: string): string {
  return secret.replace(/(.{4})(?=.)/g, '$1 ');
}

/**
 * Google Authenticator enrolment: 1. install the app, 2. scan the QR code (or enter the setup key),
 * 3. enter the 6-digit code. Loaded on demand: the QR code is only needed here.
 */
export default function GoogleEnrolment({ onActivated, onFailed, guard }: GoogleEnrolmentProps) {
  const id = useId();
  const { user } = useAuth();
  const client = useApiClient();
  const [keyOpen, setKeyOpen] = useState(false);
  const { code, setCode, error, verify } = useCodeActivation({
    factor: 'googleAuth',
    wrongCodeMessage: 'Not a correct verification code',
    onActivated,
    onFailed,
    guard,
  });
  // The enrolment starts once per mount, whatever callbacks the parent passes on re-render.
  const onFailedRef = useRef(onFailed);
  const guardRef = useRef(guard);
  useEffect(() => {
    onFailedRef.current = onFailed;
    guardRef.current = guard;
  }, [onFailed, guard]);

  const enrol = useCall(
    useCallback(
      (signal: AbortSignal) => guardRef.current(() => enrollGoogle(client, user.sub, { signal })),
      [client, user.sub],
    ),
  );
  const { run: runEnrol, abort: abortEnrol } = enrol;
  useEffect(() => {
    void runEnrol().then((outcome) => {
      if (outcome.status === 'error') onFailedRef.current(outcome.error);
    });
    return abortEnrol;
  }, [runEnrol, abortEnrol]);

  const enrolment = enrol.status === 'success' ? enrol.data : undefined;
  if (!enrolment) return <Spin aria-label="Preparing Google Authenticator setup" />;

  return (
    <>
      <ol style={{ paddingLeft: 20, marginTop: 16 }}>
        <li>
          <h3 style={{ fontSize: 16, margin: '0 0 4px' }}>Install the app</h3>
          <p style={{ margin: '0 0 8px' }}>Install Google Authenticator on your phone:</p>
          <Flex gap={16} wrap>
            <a href={APP_STORE_URL} target="_blank" rel="noopener noreferrer">
              Google Authenticator on the App Store
            </a>
            <a href={PLAY_STORE_URL} target="_blank" rel="noopener noreferrer">
              Google Authenticator on Google Play
            </a>
          </Flex>
        </li>
        <li style={{ marginTop: 16 }}>
          <h3 style={{ fontSize: 16, margin: '0 0 4px' }}>Scan the QR code</h3>
          <p style={{ margin: '0 0 8px' }}>In Google Authenticator, tap +, then Scan a QR code.</p>
          <div
            role="img"
            aria-label="QR code to scan with Google Authenticator"
            style={{ width: 'fit-content' }}
          >
            {/* The wrapper is the named image; antd's svg is an unnamed second one inside it (axe svg-img-alt). */}
            <QRCode value={enrolment.qrLink} type="svg" size={176} bordered={false} aria-hidden="true" />
          </div>
          <Button type="link" onClick={() => setKeyOpen(true)} style={{ paddingLeft: 0 }}>
            Can&apos;t scan the QR code?
          </Button>
        </li>
        <li style={{ marginTop: 16 }}>
          <h3 style={{ fontSize: 16, margin: '0 0 4px' }}>Enter the 6-digit code</h3>
          <form onSubmit={(event) => void verify(event)} noValidate style={{ maxWidth: 420 }}>
            <CodeField
              id={`${id}-code`}
              label="Verification code"
              code={code}
              onChange={setCode}
              maxLength={6}
              error={error}
            />
            <Button type="primary" htmlType="submit" disabled={code.trim() === ''} style={{ marginTop: 12 }}>
              Verify
            </Button>
          </form>
        </li>
      </ol>
      <Modal
        open={keyOpen}
        title="Enter a Setup Key"
        onCancel={() => setKeyOpen(false)}
        closable={false}
        destroyOnHidden
        footer={<Button onClick={() => setKeyOpen(false)}>Close</Button>}
      >
        <ol style={{ paddingLeft: 20 }}>
          <li>In Google Authenticator, tap +.</li>
          <li>Tap Enter a setup key.</li>
          <li>
            Enter your email address ({user.email}) and this key:{' '}
            <code aria-label="Setup key" style={{ fontSize: 16, fontWeight: 600, wordBreak: 'break-all' }}>
              {grouped(enrolment.secret)}
            </code>
          </li>
          <li>Choose Time based.</li>
          <li>Tap Add.</li>
        </ol>
      </Modal>
    </>
  );
}
