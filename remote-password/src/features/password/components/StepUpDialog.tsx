import { Modal } from 'shared-ui';
import type { ActiveFactorsData, ChallengeResponse } from 'shared-auth';
import { StepUpScreens } from 'shared-stepup';

interface StepUpDialogProps {
  activeFactorsData: ActiveFactorsData;
  /** The challenge's unused recovery codes: the screens then offer 'Use a recovery code'. */
  recoveryCodes?: ChallengeResponse['recoveryCodes'] | undefined;
  /** The challenge's default method (issue 22): the screens open with it; absent, the fixed order. */
  preferredMethod?: ChallengeResponse['preferredMethod'] | undefined;
  onVerified: () => void;
  /** 'Try again' on 'Error' without factors: the challenge is loaded again. */
  onRetry: () => void;
  /** Close (the dialog's button or Escape): back to the change form as it was. */
  onCancel: () => void;
}

/**
 * The Security page's step-up screens over the change form, for a user with an active 2-step factor. Its own
 * chunk: only such users, and only once the server asks, load it. The page returns the focus to Save on close.
 */
export default function StepUpDialog({
  activeFactorsData,
  recoveryCodes,
  preferredMethod,
  onVerified,
  onRetry,
  onCancel,
}: StepUpDialogProps) {
  return (
    <Modal
      open
      title="2-step verification"
      onCancel={onCancel}
      // A click beside the dialog must not throw away a code being typed; Close and Escape still leave.
      mask={{ closable: false }}
      focusable={{ focusTriggerAfterClose: false }}
      footer={null}
      destroyOnHidden
    >
      <p>Your account uses 2-step verification: verify it&apos;s you before your new password is saved.</p>
      <StepUpScreens
        activeFactorsData={activeFactorsData}
        recoveryCodes={recoveryCodes}
        preferredMethod={preferredMethod}
        onVerified={onVerified}
        onRetry={onRetry}
      />
    </Modal>
  );
}
