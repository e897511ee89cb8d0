import { useEffect, useId, useRef, useState, type FormEvent, type RefObject } from 'react';
import { Button, Flex, Modal } from 'shared-ui';
import { Input, type InputRef } from 'shared-ui/forms';
import { useAuth } from 'shared-auth';
import type { ReauthenticationStatus } from '../model/reauthentication.js';

export const CONFIRM_ITS_YOU_TEXT = 'For your security, enter your password to turn on 2-step verification.';

interface ConfirmItsYouDialogProps {
  status: ReauthenticationStatus;
  /** The server's text under the field (a wrong password, too many tries). */
  error: string | null;
  onConfirm: (password: string) => void;
  onCancel: () => void;
  /** The dialog has gone: the page gives the focus back. */
  afterClose: () => void;
}

/** "Confirm it's you": the password again before the first 2-step factor is turned on. */
export function ConfirmItsYouDialog({
  status,
  error,
  onConfirm,
  onCancel,
  afterClose,
}: ConfirmItsYouDialogProps) {
  const field = useRef<InputRef>(null);
  return (
    <Modal
      open={status === 'ASKING' || status === 'CHECKING'}
      title="Confirm it's you"
      onCancel={onCancel}
      afterClose={afterClose}
      // Into the field once the dialog is open (the dialog itself takes the focus first).
      afterOpenChange={(open) => {
        if (open) field.current?.focus();
      }}
      // The page returns the focus itself: the control that opened the dialog may be disabled at this moment.
      focusable={{ focusTriggerAfterClose: false }}
      mask={{ closable: false }}
      footer={null}
      destroyOnHidden
    >
      <PasswordForm
        field={field}
        checking={status === 'CHECKING'}
        error={error}
        onConfirm={onConfirm}
        onCancel={onCancel}
      />
    </Modal>
  );
}

interface PasswordFormProps {
  field: RefObject<InputRef | null>;
  checking: boolean;
  error: string | null;
  onConfirm: (password: string) => void;
  onCancel: () => void;
}

function PasswordForm({ field, checking, error, onConfirm, onCancel }: PasswordFormProps) {
  const id = useId();
  const { user } = useAuth();
  const [password, setPassword] = useState('');
  const ids = { why: `${id}-why`, password: `${id}-password`, error: `${id}-error` };

  // Back to the field (text selected) after a refusal, to type again at once.
  useEffect(() => {
    if (checking || !error) return;
    field.current?.focus();
    field.current?.select();
  }, [field, checking, error]);

  function submit(event: FormEvent) {
    event.preventDefault();
    if (password !== '' && !checking) onConfirm(password);
  }

  return (
    <form onSubmit={submit} noValidate>
      <p id={ids.why}>{CONFIRM_ITS_YOU_TEXT}</p>
      {/* Lets password managers offer this account's password. */}
      <input type="text" name="username" autoComplete="username" value={user.email} readOnly hidden />
      <label htmlFor={ids.password} style={{ display: 'block', fontWeight: 600, margin: '8px 0 4px' }}>
        Password
      </label>
      <Input.Password
        id={ids.password}
        ref={field}
        name="current-password"
        autoComplete="current-password"
        value={password}
        onChange={(event) => setPassword(event.target.value)}
        status={error ? 'error' : undefined}
        aria-required="true"
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? `${ids.error} ${ids.why}` : ids.why}
      />
      {error ? (
        <div id={ids.error} role="alert" style={{ color: '#a8071a', marginTop: 4 }}>
          {error}
        </div>
      ) : null}
      <Flex gap={12} justify="flex-end" style={{ marginTop: 24 }}>
        <Button onClick={onCancel}>Cancel</Button>
        {/* A new button once the check ends: antd's loading icon can stay behind (and in the name) otherwise. */}
        <Button
          key={checking ? 'checking' : 'ready'}
          type="primary"
          htmlType="submit"
          loading={checking}
          disabled={password === ''}
        >
          Confirm
        </Button>
      </Flex>
    </form>
  );
}
