// The step-up verification screens both the Security and the Password remote run. Bundled into each remote (not
// a Module Federation share): it is small, and each remote then ships the screens it was tested with.
export { StepUpScreens, type StepUpScreensProps } from './components/StepUpScreens.js';
export { StepUpDialog, type StepUpDialogProps } from './components/StepUpDialog.js';
export { CodeField } from './components/CodeField.js';
export {
  getChallenge,
  getPasskeyOptions,
  sendEmailChallenge,
  verifyPasskey,
  verifyRecoveryCode,
  verifyStepUp,
  type RequestOptions,
} from './api/stepUpApi.js';
export {
  clearStepUpState,
  loadStepUpState,
  saveStepUpState,
  stepUpStorageKey,
} from './model/stepUpStorage.js';
export {
  factorsOf,
  initialStepUpFlow,
  stepUpFlowReducer,
  type StepUpFlow,
  type StepUpFlowAction,
  type StepUpFlowStatus,
  type RecoveryCodeOrigin,
} from './model/stepUpFlow.js';
export { RESEND_SECONDS, resendLabel, useCountdown } from './hooks/useCountdown.js';
export { useChallengeCheck, type ChallengeCheckAction } from './hooks/useChallengeCheck.js';
export {
  ceremonyFailureOf,
  createPasskey,
  getPasskeyAssertion,
  supportsWebAuthn,
  type CeremonyFailure,
} from './webauthn/webauthn.js';
export { PASSKEY_STEP_UP_TEXTS } from './model/passkey.js';
