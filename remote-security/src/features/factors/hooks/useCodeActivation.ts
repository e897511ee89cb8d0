import { useCallback, useState, type FormEvent } from 'react';
import { useApiClient, useAuth } from 'shared-auth';
import { useCall } from 'shared-auth/async';
import { activate } from '../api/factorsApi.js';
import type { ReauthenticationGuard } from '../../../lib/reauthentication/useConfirmItsYou.js';
import type { FactorKind } from '../model/kinds/index.js';

interface CodeActivationOptions {
  factor: FactorKind;
  /** What the page says when the server does not accept the code. */
  wrongCodeMessage: string;
  onActivated: (enrolledDate: string | null) => void;
  onFailed: (error: unknown) => void;
  /** Activating a first factor may need the password again ("Confirm it's you"), then the same code again. */
  guard: ReauthenticationGuard;
}

/**
 * The code step of an enrolment: the entered code, and its submit. A wrong code and the server's throttle (429,
 * with its wait) show next to the field; anything else ends the enrolment through onFailed.
 */
export function useCodeActivation({
  factor,
  wrongCodeMessage,
  onActivated,
  onFailed,
  guard,
}: CodeActivationOptions) {
  const { user } = useAuth();
  const client = useApiClient();
  const [code, setCode] = useState('');
  const [error, setError] = useState<string>();
  const activation = useCall(
    useCallback(
      (signal: AbortSignal, entered: string) =>
        guard(() => activate(client, factor, user.sub, entered, { signal })),
      [guard, client, factor, user.sub],
    ),
  );
  const verifying = activation.status === 'pending';

  async function verify(event: FormEvent) {
    event.preventDefault();
    const entered = code.trim();
    if (entered === '' || verifying) return;
    setError(undefined);
    const outcome = await activation.run(entered);
    if (outcome.status === 'success') {
      if (outcome.data.ok) onActivated(outcome.data.status.enrolledDate);
      else setError(wrongCodeMessage);
    } else if (outcome.status === 'error') {
      if (outcome.failure.kind === 'throttled') setError(outcome.failure.message);
      else onFailed(outcome.error);
    }
  }

  return { code, setCode, verifying, error, verify };
}
