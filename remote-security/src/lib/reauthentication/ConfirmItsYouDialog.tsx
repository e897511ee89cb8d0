import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
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

export interface ConfirmItsYouDialogProps {
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
 * check passwords, Okta mode) a new sign-in at the identity provider. One form for both: the sign-in view has no
 * field, and its primary button is 'Sign in again' (none where the host offers no new sign-in).
 */
export function ConfirmItsYouDialog({
  status,
  error,
  onConfirm,
  onSignInAgain,
  onCancel,
  afterClose,
}: ConfirmItsYouDialogProps) {
  const id = useId();
  const ids = { why: `${id}-why`, password: `${id}-password`, error: `${id}-error` };
  const { user } = useAuth();
  const field = useRef<InputRef>(null);
  const primary = useRef<HTMLButtonElement>(null);
  const [password, setPassword] = useState('');
  const signingIn = status === 'SIGNING_IN_AGAIN' || status === 'REDIRECTING';
  // The check or the redirect under way: nothing to send again, and (redirecting) nothing to cancel any more.
  const busy = status === 'CHECKING' || status === 'REDIRECTING';
  const describedBy = error ? `${ids.error} ${ids.why}` : ids.why;

  // Back to the field (text selected) after a refusal, to type again at once.
  useEffect(() => {
    if (signingIn || busy || !error) return;
    field.current?.focus();
    field.current?.select();
  }, [signingIn, busy, error]);
  // The sign-in view replacing the password form in an open dialog (409 no_local_password): to its button.
  useEffect(() => {
    if (signingIn) primary.current?.focus();
  }, [signingIn]);

  function submit(event: FormEvent) {
    event.preventDefault();
    if (busy) return;
    if (signingIn) onSignInAgain?.();
    else if (password !== '') onConfirm(password);
  }

  let why = CONFIRM_ITS_YOU_TEXT;
  if (signingIn) why = onSignInAgain ? SIGN_IN_AGAIN_TEXT : SIGN_IN_AGAIN_BY_HAND_TEXT;
  const errorText = error ? (
    <div id={ids.error} role="alert" style={{ color: '#a8071a', marginTop: 4 }}>
      {error}
    </div>
  ) : null;

  return (
    <Modal
      open={status === 'ASKING' || status === 'CHECKING' || signingIn}
      title="Confirm it's you"
      onCancel={status === 'REDIRECTING' ? undefined : onCancel}
      afterClose={afterClose}
      // Into the field (or to the sign-in button) once the dialog is open (the dialog itself takes the focus first).
      afterOpenChange={(open) => {
        if (!open) return;
        field.current?.focus();
        primary.current?.focus();
      }}
      // The page returns the focus itself: the control that opened the dialog may be disabled at this moment.
      focusable={{ focusTriggerAfterClose: false }}
      mask={{ closable: false }}
      footer={null}
      destroyOnHidden
    >
      <form onSubmit={submit} noValidate>
        <p id={ids.why}>{why}</p>
        {signingIn ? (
          errorText
        ) : (
          <>
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
              aria-describedby={describedBy}
            />
            {errorText}
          </>
        )}
        <Flex gap={12} justify="flex-end" style={{ marginTop: 24 }}>
          <Button onClick={onCancel} disabled={status === 'REDIRECTING'}>
            Cancel
          </Button>
          {signingIn && !onSignInAgain ? null : (
            // A new button once the check or the redirect ends: antd's loading icon can stay behind (and in the
            // name) otherwise.
            <Button
              key={`${signingIn ? 'sign-in' : 'password'}-${busy ? 'busy' : 'ready'}`}
              ref={signingIn ? primary : undefined}
              type="primary"
              htmlType="submit"
              loading={busy}
              disabled={!signingIn && password === ''}
              aria-describedby={signingIn ? describedBy : undefined}
            >
              {signingIn ? 'Sign in again' : 'Confirm'}
            </Button>
          )}
        </Flex>
      </form>
    </Modal>
  );
}
