/**
 * The Security page's "Recovery codes" section (issue 20): what the codes are for, how many are left, and the
 * button that makes a set (a 2-step method must be on). Where the sign-in cannot take them (Okta mode) it says
 * so, with no button.
 */
import { lazy, Suspense } from 'react';
import { Alert, Button, Modal, Spin, Typography } from 'shared-ui';
import { useAuth } from 'shared-auth';
import { useRecoveryCodes, type RecoveryCodesOptions } from '../hooks/useRecoveryCodes.js';
import { codesLeftLabel, hasCodes, isLow, lowCodesWarning } from '../model/recoveryCodes.js';
import { RECOVERY_CODES_TEXTS as TEXTS } from './texts.js';

const SaveCodesDialog = lazy(() => import('./SaveCodesDialog.js'));

const TITLE_ID = 'recovery-codes-title';
const NOTE_ID = 'recovery-codes-note';

export type RecoveryCodesSectionProps = RecoveryCodesOptions;

export function RecoveryCodesSection(props: RecoveryCodesSectionProps) {
  const { user } = useAuth();
  const codes = useRecoveryCodes(props);
  const { state } = codes;
  const { status } = state;
  const noActiveFactor = props.activeCount === 0 || state.noActiveFactor;
  const existing = hasCodes(status) && !noActiveFactor;

  let body;
  if (state.view === 'LOADING') body = <Spin aria-label={`Loading ${TEXTS.title}`} />;
  else if (state.view === 'ERROR')
    body = (
      <>
        <p role="alert">{TEXTS.unexpectedError}</p>
        <Button onClick={codes.reload}>Try again</Button>
      </>
    );
  else if (status?.available === false) body = <p>{TEXTS.unavailable}</p>;
  else
    body = (
      <>
        {noActiveFactor ? <p id={NOTE_ID}>{TEXTS.noActiveFactor}</p> : null}
        {existing && status ? (
          <>
            <p>{codesLeftLabel(status)}</p>
            {isLow(status) ? (
              <Alert
                type="warning"
                showIcon
                title={lowCodesWarning(status.left)}
                style={{ marginBottom: 12 }}
              />
            ) : null}
          </>
        ) : null}
        <Button
          type={existing ? 'default' : 'primary'}
          disabled={noActiveFactor}
          aria-describedby={noActiveFactor ? NOTE_ID : undefined}
          loading={state.view === 'GENERATING'}
          onClick={codes.generate}
        >
          {existing ? TEXTS.generateNew : TEXTS.generate}
        </Button>
      </>
    );

  return (
    <section aria-labelledby={TITLE_ID} style={{ borderTop: '1px solid #f0f0f0', padding: '16px 0' }}>
      {/* Focusable from script only: where the focus goes once the codes' dialog has closed. */}
      <Typography.Title level={2} id={TITLE_ID} tabIndex={-1} style={{ fontSize: 20, margin: 0 }}>
        {TEXTS.title}
      </Typography.Title>
      <p style={{ margin: '4px 0 12px' }}>{TEXTS.intro}</p>
      {body}
      <Modal
        open={state.view === 'CONFIRM_NEW'}
        title={TEXTS.confirmNewTitle}
        onCancel={codes.cancel}
        destroyOnHidden
        footer={[
          <Button key="cancel" onClick={codes.cancel}>
            Cancel
          </Button>,
          <Button key="confirm" type="primary" onClick={codes.confirm}>
            Confirm
          </Button>,
        ]}
      >
        <p>{TEXTS.confirmNewText}</p>
      </Modal>
      {state.view === 'SAVING' && state.generated ? (
        <Suspense fallback={<Spin aria-label="Loading your recovery codes" />}>
          <SaveCodesDialog
            generated={state.generated}
            email={user.email}
            saved={state.saved}
            onSavedChange={codes.setSaved}
            onDone={() => {
              codes.done();
              document.getElementById(TITLE_ID)?.focus();
            }}
          />
        </Suspense>
      ) : null}
    </section>
  );
}
