import { useState, type FormEvent, type ReactNode } from 'react';
import { Button, Flex, WaitDialog } from 'shared-ui';
import { useCall } from 'shared-auth/async';
import { CodeField } from './CodeField.js';
import {
  canVerifyStepUpCode,
  normaliseStepUpCode,
  verifyFailureMessage,
  type StepUpCodeKind,
} from '../model/codes.js';

interface CodeFormProps {
  factor: StepUpCodeKind;
  /** The code field's id: the screens move the focus to it. */
  codeId: string;
  /** Sends the code to the server; rejects when it is refused. The signal ends it if the screen goes away. */
  verify: (signal: AbortSignal, code: string) => Promise<void>;
  onVerified: () => void;
  onCancel: () => void;
  /** A Back button before Cancel (the recovery-code screen). */
  onBack?: () => void;
  children?: ReactNode;
}

/**
 * 'Enter authentication code', Cancel and Verify. Any ok answer means verified (spec section 7); a wrong code shows
 * the spec's text inline, any other failure says the code could not be checked; the wait dialog closes either way.
 */
export function CodeForm({ factor, codeId, verify, onVerified, onCancel, onBack, children }: CodeFormProps) {
  const recovery = factor === 'recoveryCode';
  const [code, setCode] = useState('');
  const [error, setError] = useState<string>();
  const verifying = useCall(verify);

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (!canVerifyStepUpCode(factor, code) || verifying.status === 'pending') return;
    setError(undefined);
    const outcome = await verifying.run(normaliseStepUpCode(factor, code));
    if (outcome.status === 'success') onVerified();
    else if (outcome.status === 'error') setError(verifyFailureMessage(factor, outcome.failure));
  }

  return (
    <form onSubmit={(event) => void submit(event)} noValidate style={{ maxWidth: 420 }}>
      {children}
      <div style={{ marginTop: 8 }}>
        <CodeField
          id={codeId}
          label={recovery ? 'Recovery code' : 'Enter authentication code'}
          code={code}
          onChange={setCode}
          error={error}
          {...(recovery ? { kind: 'recoveryCode' as const, maxLength: 32 } : {})}
        />
      </div>
      <Flex gap={12} style={{ marginTop: 16 }}>
        {onBack ? <Button onClick={onBack}>Back</Button> : null}
        <Button onClick={onCancel}>Cancel</Button>
        <Button type="primary" htmlType="submit" disabled={!canVerifyStepUpCode(factor, code)}>
          Verify
        </Button>
      </Flex>
      <WaitDialog
        open={verifying.status === 'pending'}
        title="Verifying"
        description="Please wait a moment while we verify your code"
      />
    </form>
  );
}
