import { Input } from 'shared-ui/forms';

interface VerificationCodeFieldProps {
  id: string;
  code: string;
  onChange: (code: string) => void;
  maxLength: number;
  disabled?: boolean;
  /** Shown under the field as an alert, and the field is marked invalid. */
  error?: string;
}

/** The labelled 'Verification code' field of an enrolment, with its error. */
export function VerificationCodeField({
  id,
  code,
  onChange,
  maxLength,
  disabled,
  error,
}: VerificationCodeFieldProps) {
  return (
    <>
      <label htmlFor={id} style={{ display: 'block', fontWeight: 600, margin: '8px 0 4px' }}>
        Verification code
      </label>
      <Input
        id={id}
        value={code}
        onChange={(event) => onChange(event.target.value)}
        disabled={disabled}
        maxLength={maxLength}
        placeholder="123456"
        autoComplete="one-time-code"
        inputMode="numeric"
        status={error ? 'error' : undefined}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? `${id}-error` : undefined}
      />
      {error ? (
        <div id={`${id}-error`} role="alert" style={{ color: '#a8071a', marginTop: 4 }}>
          {error}
        </div>
      ) : null}
    </>
  );
}
