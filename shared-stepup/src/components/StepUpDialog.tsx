/**
 * The step-up screens in a dialog over a page's own form or list, for a holder with an active 2-step method, once a
 * change answered 403 step_up_required (the Password page's save, the Devices list's sign-outs). Each remote wraps
 * it in a file of its own that it loads lazily, so only such holders, and only once the server asks, load it.
 */
import { Modal } from 'shared-ui';
import type { ActiveFactorsData, ChallengeResponse } from 'shared-auth';
import { StepUpScreens } from './StepUpScreens.js';

export interface StepUpDialogProps {
  /** The dialog's title ("2-step verification"). */
  title: string;
  /** One line above the screens: what the verification is for. */
  intro: string;
  activeFactorsData: ActiveFactorsData;
  /** The challenge's unused recovery codes: the screens then offer 'Use a recovery code'. */
  recoveryCodes?: ChallengeResponse['recoveryCodes'] | undefined;
  /** The challenge's default method (issue 22): the screens open with it; absent, the fixed order. */
  preferredMethod?: ChallengeResponse['preferredMethod'] | undefined;
  onVerified: () => void;
  /** 'Try again' on the screens' 'Error' (the challenge did not load): the page loads it again. */
  onRetry: () => void;
  /** Close or Escape: the page goes back to where it was, with nothing changed. */
  onCancel: () => void;
}

export function StepUpDialog({
  title,
  intro,
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
      title={title}
      onCancel={onCancel}
      // A click beside the dialog must not throw away a code being typed; Close and Escape still leave.
      mask={{ closable: false }}
      // The page places the focus itself: on its result, or back on the button that asked.
      focusable={{ focusTriggerAfterClose: false }}
      footer={null}
      destroyOnHidden
    >
      <p>{intro}</p>
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
