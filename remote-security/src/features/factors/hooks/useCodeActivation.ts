import { useState, type FormEvent } from 'react';
import { isApiError, useApiClient, useAuth } from 'shared-auth';
import { activate } from '../api/factorsApi.js';
import type { ReauthenticationGuard } from '../../reauthentication/hooks/useReauthentication.js';
import type { FactorKind } from '../model/enrolment.js';

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
 * The code step of an enrolment: the entered code, and its submit. A wrong code and the server's throttle (429)
 * show next to the field; anything else ends the enrolment through onFailed.
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
  const [verifying, setVerifying] = useState(false);
  const [error, setError] = useState<string>();

  async function verify(event: FormEvent) {
    event.preventDefault();
    const entered = code.trim();
    if (entered === '' || verifying) return;
    setVerifying(true);
    setError(undefined);
    try {
      const result = await guard(() => activate(client, factor, user.sub, entered));
      if (result.ok) {
        onActivated(result.status.enrolledDate);
        return;
      }
      setError(wrongCodeMessage);
    } catch (failure) {
      if (isApiError(failure) && failure.status === 429) setError(failure.message);
      else onFailed(failure);
    } finally {
      setVerifying(false);
    }
  }

  return { code, setCode, verifying, error, verify };
}
