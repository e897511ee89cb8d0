import { useId, useState, type FormEvent, type ReactNode } from 'react';
import { Button, Flex, WaitDialog } from 'shared-ui';
import { isApiError } from 'shared-auth';
import { CodeField } from './CodeField.js';
import { canVerifyStepUpCode, INVALID_CODE_MESSAGES, normaliseStepUpCode } from '../model/codes.js';

interface CodeFormProps {
  factor: 'googleAuth' | 'email';
  /** Sends the code to the server; rejects when it is refused. */
  verify: (code: string) => Promise<void>;
  onVerified: () => void;
  onCancel: () => void;
  children?: ReactNode;
}

/** 'Enter authentication code', Cancel and Verify; a wrong code shows inline and the wait dialog closes. */
export function CodeForm({ factor, verify, onVerified, onCancel, children }: CodeFormProps) {
  const id = useId();
  const [code, setCode] = useState('');
  const [error, setError] = useState<string>();
  const [verifying, setVerifying] = useState(false);

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (!canVerifyStepUpCode(factor, code) || verifying) return;
    setVerifying(true);
    setError(undefined);
    try {
      await verify(normaliseStepUpCode(factor, code));
    } catch (failure) {
      setVerifying(false);
      // Too many wrong codes: the server's message says how long to wait.
      setError(
        isApiError(failure) && failure.status === 429 ? failure.message : INVALID_CODE_MESSAGES[factor],
      );
      return;
    }
    setVerifying(false);
    onVerified();
  }

  return (
    <form onSubmit={(event) => void submit(event)} noValidate style={{ maxWidth: 420 }}>
      {children}
      <div style={{ marginTop: 8 }}>
        <CodeField
          id={`${id}-code`}
          label="Enter authentication code"
          code={code}
          onChange={setCode}
          error={error}
        />
      </div>
      <Flex gap={12} style={{ marginTop: 16 }}>
        <Button onClick={onCancel}>Cancel</Button>
        <Button type="primary" htmlType="submit" disabled={!canVerifyStepUpCode(factor, code)}>
          Verify
        </Button>
      </Flex>
      <WaitDialog
        open={verifying}
        title="Verifying"
        description="Please wait a moment while we verify your code"
      />
    </form>
  );
}
