import { Input } from 'shared-ui/forms';

interface CodeFieldProps {
  id: string;
  /** The field's visible label, e.g. 'Verification code'. */
  label: string;
  code: string;
  onChange: (code: string) => void;
  maxLength?: number;
  disabled?: boolean;
  /** Shown under the field as an alert, and the field is marked invalid. */
  error?: string;
  /** A one-time code of digits (default), or a recovery code: letters and digits, no autofill. */
  kind?: 'otp' | 'recoveryCode';
}

/** A labelled one-time-code field with its error, as enrolment and step-up ask for codes. */
export function CodeField({
  id,
  label,
  code,
  onChange,
  maxLength,
  disabled,
  error,
  kind = 'otp',
}: CodeFieldProps) {
  const recovery = kind === 'recoveryCode';
  return (
    <>
      <label htmlFor={id} style={{ display: 'block', fontWeight: 600, margin: '8px 0 4px' }}>
        {label}
      </label>
      <Input
        id={id}
        value={code}
        onChange={(event) => onChange(event.target.value)}
        disabled={disabled}
        maxLength={maxLength}
        placeholder={recovery ? 'XXXXX-XXXXX' : '123456'}
        autoComplete={recovery ? 'off' : 'one-time-code'}
        inputMode={recovery ? 'text' : 'numeric'}
        autoCapitalize={recovery ? 'characters' : undefined}
        spellCheck={recovery ? false : undefined}
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
