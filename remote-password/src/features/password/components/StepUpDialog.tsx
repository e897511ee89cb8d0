/**
 * The step-up screens over the change form (shared-stepup's dialog), for a user with an active 2-step factor. Its
 * own chunk: only such users, and only once the server asks, load it. The page returns the focus to Save on close.
 */
import { StepUpDialog, type StepUpDialogProps } from 'shared-stepup';

export default function PasswordStepUpDialog(props: Omit<StepUpDialogProps, 'title' | 'intro'>) {
  return (
    <StepUpDialog
      title="2-step verification"
      intro="Your account uses 2-step verification: verify it's you before your new password is saved."
      {...props}
    />
  );
}
