/**
 * The step-up screens (shared-stepup) in a dialog over the Devices list, when a sign-out answered 403
 * step_up_required. Its own chunk: only a holder with a 2-step method, and only once the server asks, loads it.
 */
import { Modal } from 'shared-ui';
import type { ActiveFactorsData, ChallengeResponse } from 'shared-auth';
import { StepUpScreens } from 'shared-stepup';
import { DEVICES_TEXTS as TEXTS } from '../model/texts.js';

interface StepUpDialogProps {
  activeFactorsData: ActiveFactorsData;
  recoveryCodes?: ChallengeResponse['recoveryCodes'] | undefined;
  /** The holder's default method: the screens open with it. */
  preferredMethod?: ChallengeResponse['preferredMethod'] | undefined;
  onVerified: () => void;
  /** 'Try again' on the screens' 'Error' (the challenge did not load): read it again. */
  onRetry: () => void;
  /** Close or Escape: nothing signed out. */
  onCancel: () => void;
}

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
      title={TEXTS.stepUpTitle}
      onCancel={onCancel}
      // A click beside the dialog must not throw away a code being typed; Close and Escape still leave.
      mask={{ closable: false }}
      // The section places the focus itself: on the result, or back on the button on cancel.
      focusable={{ focusTriggerAfterClose: false }}
      footer={null}
      destroyOnHidden
    >
      <p>{TEXTS.stepUpIntro}</p>
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
