import { useEffect, useId, useRef, useState, type FormEvent, type RefObject } from 'react';
import { Button, Flex, Modal } from 'shared-ui';
import { Input, type InputRef } from 'shared-ui/forms';
import { useAuth } from 'shared-auth';
import type { ReauthenticationStatus } from './reauthentication.js';

export const CONFIRM_ITS_YOU_TEXT = 'For your security, enter your password to turn on 2-step verification.';
export const SIGN_IN_AGAIN_TEXT =
  'For your security, you need to sign in again to turn on 2-step verification. You will come back to this page afterwards.';
/** Where the page's host offers no new sign-in (a mount() without signInAgain). */
export const SIGN_IN_AGAIN_BY_HAND_TEXT =
  'For your security, you need to sign in again to turn on 2-step verification: sign out, sign in, and come back to this page.';

interface ConfirmItsYouDialogProps {
  status: ReauthenticationStatus;
  /** The text under the field or the button (a wrong password, too many tries, a sign-in that could not start). */
  error: string | null;
  onConfirm: (password: string) => void;
  /** 'Sign in again'; none where the page's host offers no new sign-in. */
  onSignInAgain: (() => void) | undefined;
  onCancel: () => void;
  /** The dialog has gone: the page gives the focus back. */
  afterClose: () => void;
}

/**
 * "Confirm it's you" before the first 2-step factor is turned on: the password again, or (where the server cannot
 * check passwords, Okta mode) a new sign-in at the identity provider.
 */
export function ConfirmItsYouDialog({
  status,
  error,
  onConfirm,
  onSignInAgain,
  onCancel,
  afterClose,
}: ConfirmItsYouDialogProps) {
  const field = useRef<InputRef>(null);
  const signInButton = useRef<HTMLButtonElement>(null);
  const signingIn = status === 'SIGNING_IN_AGAIN' || status === 'REDIRECTING';
  return (
    <Modal
      open={status === 'ASKING' || status === 'CHECKING' || signingIn}
      title="Confirm it's you"
      // The page is leaving for the sign-in: nothing to cancel any more.
      onCancel={status === 'REDIRECTING' ? undefined : onCancel}
      afterClose={afterClose}
      // Into the field once the dialog is open (the dialog itself takes the focus first).
      afterOpenChange={(open) => {
        if (!open) return;
        field.current?.focus();
        signInButton.current?.focus();
      }}
      // The page returns the focus itself: the control that opened the dialog may be disabled at this moment.
      focusable={{ focusTriggerAfterClose: false }}
      mask={{ closable: false }}
      footer={null}
      destroyOnHidden
    >
      {signingIn ? (
        <SignInAgainView
          button={signInButton}
          redirecting={status === 'REDIRECTING'}
          error={error}
          onSignInAgain={onSignInAgain}
          onCancel={onCancel}
        />
      ) : (
        <PasswordForm
          field={field}
          checking={status === 'CHECKING'}
          error={error}
          onConfirm={onConfirm}
          onCancel={onCancel}
        />
      )}
    </Modal>
  );
}

interface SignInAgainViewProps {
  button: RefObject<HTMLButtonElement | null>;
  redirecting: boolean;
  error: string | null;
  onSignInAgain: (() => void) | undefined;
  onCancel: () => void;
}

/** The proof is a new sign-in: a password typed here could not be checked (Okta mode). */
function SignInAgainView({ button, redirecting, error, onSignInAgain, onCancel }: SignInAgainViewProps) {
  const id = useId();
  const ids = { why: `${id}-why`, error: `${id}-error` };
  // Focus the button when the view replaces the password form in an open dialog (409 no_local_password).
  useEffect(() => {
    button.current?.focus();
  }, [button]);
  return (
    <div>
      <p id={ids.why}>{onSignInAgain ? SIGN_IN_AGAIN_TEXT : SIGN_IN_AGAIN_BY_HAND_TEXT}</p>
      {error ? (
        <div id={ids.error} role="alert" style={{ color: '#a8071a', marginTop: 4 }}>
          {error}
        </div>
      ) : null}
      <Flex gap={12} justify="flex-end" style={{ marginTop: 24 }}>
        <Button onClick={onCancel} disabled={redirecting}>
          Cancel
        </Button>
        {onSignInAgain ? (
          <Button
            key={redirecting ? 'redirecting' : 'ready'}
            ref={button}
            type="primary"
            loading={redirecting}
            aria-describedby={error ? `${ids.error} ${ids.why}` : ids.why}
            onClick={() => {
              if (!redirecting) onSignInAgain();
            }}
          >
            Sign in again
          </Button>
        ) : null}
      </Flex>
    </div>
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
