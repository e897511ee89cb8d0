import { lazy, Suspense, useEffect, useRef } from 'react';
import { Alert, Button, Descriptions, Result, Spin, Typography, WaitDialog } from 'shared-ui';
import { useAuth } from 'shared-auth';
import { usePasswordPage } from '../hooks/usePasswordPage.js';
import type { PasswordPageStatus } from '../model/passwordPageReducer.js';
import { SaveRefusedDialog } from './SaveRefusedDialog.js';
import { visuallyHidden } from './visuallyHidden.js';

// The change view has the form controls; they load when the user starts a change, not with the page.
const loadChangePasswordForm = () => import('./ChangePasswordForm.js');
const ChangePasswordForm = lazy(() =>
  loadChangePasswordForm().then((module) => ({ default: module.ChangePasswordForm })),
);
// The step-up screens load only for a user the server asks to verify first (one with an active 2-step factor).
const loadStepUpDialog = () => import('./StepUpDialog.js');
const StepUpDialog = lazy(loadStepUpDialog);

const STEP_UP_STATUSES: readonly PasswordPageStatus[] = ['STEP_UP_LOADING', 'STEP_UP'];

export function PasswordPage() {
  const { user, isFederated } = useAuth();
  return (
    <section aria-labelledby="password-title" style={{ maxWidth: 720 }}>
      <Typography.Title id="password-title" level={1} style={{ fontSize: 28 }}>
        Password
      </Typography.Title>
      {isFederated ? (
        // Their password belongs to their home identity provider (spec section 6).
        <Alert type="info" showIcon title="Resource not available for federated users" />
      ) : (
        <PasswordPageStatuss email={user.email} />
      )}
    </section>
  );
}

function PasswordPageStatuss({ email }: { email: string }) {
  const {
    status,
    refusal,
    activeFactorsData,
    recoveryCodes,
    preferredMethod,
    startChange,
    cancel,
    closeRefusal,
    save,
    retry,
    stepUpVerified,
    stepUpCancelled,
  } = usePasswordPage();
  const changeButton = useRef<HTMLButtonElement>(null);
  const saveButton = useRef<HTMLButtonElement>(null);
  const retryButton = useRef<HTMLButtonElement>(null);
  const previousStatus = useRef<PasswordPageStatus>(status);

  // Once the page is shown, fetch the change form in the background so that Change Password opens at once.
  useEffect(() => {
    const idle = window.requestIdleCallback ?? ((callback: () => void) => window.setTimeout(callback, 200));
    idle(() => void loadChangePasswordForm());
  }, []);

  // While the challenge loads, fetch the step-up screens too.
  useEffect(() => {
    if (status === 'STEP_UP_LOADING') void loadStepUpDialog();
  }, [status]);

  // Back in the Initial view after Cancel or a save, keyboard focus returns to where the change began; back in the
  // form from the step-up dialog, to the Save button that opened it.
  useEffect(() => {
    if (status === 'INITIAL' && previousStatus.current !== 'INITIAL') changeButton.current?.focus();
    if (status === 'CHANGE' && STEP_UP_STATUSES.includes(previousStatus.current)) saveButton.current?.focus();
    // The form (and the focus in it) is gone: the way out takes the focus.
    if (status === 'ERROR') retryButton.current?.focus();
    previousStatus.current = status;
  }, [status]);

  if (status === 'ERROR') {
    return (
      <>
        <div role="alert">
          <Result status="error" title="An Unexpected Error happened..." />
        </div>
        {/* The way out: back to the Initial view, whose Change Password button then takes the focus. */}
        <Button ref={retryButton} onClick={retry}>
          Try again
        </Button>
      </>
    );
  }

  if (status === 'INITIAL') {
    return (
      <>
        <Descriptions
          column={1}
          bordered
          items={[
            { key: 'username', label: 'Username', children: email },
            {
              key: 'password',
              label: 'Password',
              children: (
                <>
                  <span aria-hidden="true">••••••••</span>
                  <span style={visuallyHidden}>hidden</span>
                </>
              ),
            },
          ]}
        />
        <Button ref={changeButton} type="primary" onClick={startChange} style={{ marginTop: 24 }}>
          Change Password
        </Button>
      </>
    );
  }

  // CHANGE, SAVING and the step-up views: the form stays mounted under the dialogs, so a refused save or a step-up
  // verification keeps what was typed.
  return (
    <>
      <Suspense fallback={<Spin aria-label="Loading the form" />}>
        <ChangePasswordForm email={email} onCancel={cancel} onSave={save} saveRef={saveButton} />
      </Suspense>
      {/* Loading the challenge is still part of the save the user asked for. */}
      <WaitDialog
        open={status === 'SAVING' || status === 'STEP_UP_LOADING'}
        title="Saving"
        description="Please wait a moment as we save your changes"
      />
      {status === 'STEP_UP' ? (
        <Suspense fallback={<WaitDialog open title="Loading" />}>
          <StepUpDialog
            activeFactorsData={activeFactorsData ?? {}}
            recoveryCodes={recoveryCodes}
            preferredMethod={preferredMethod}
            onVerified={stepUpVerified}
            onRetry={retry}
            onCancel={stepUpCancelled}
          />
        </Suspense>
      ) : null}
      <SaveRefusedDialog refusal={refusal} onClose={closeRefusal} />
    </>
  );
}
