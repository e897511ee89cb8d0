/**
 * The step-up screens (shared-stepup's dialog) over the Devices list, when a sign-out answered 403
 * step_up_required. Its own chunk: only a holder with a 2-step method, and only once the server asks, loads it.
 */
import { StepUpDialog, type StepUpDialogProps } from 'shared-stepup';
import { DEVICES_TEXTS as TEXTS } from '../model/texts.js';

export default function DevicesStepUpDialog(props: Omit<StepUpDialogProps, 'title' | 'intro'>) {
  return <StepUpDialog title={TEXTS.stepUpTitle} intro={TEXTS.stepUpIntro} {...props} />;
}
