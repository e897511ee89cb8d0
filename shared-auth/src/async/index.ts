// The browser's one async layer: useCall (an AbortSignal per run, lower-case statuses) and the one reading of a
// failed call (429 with its wait, 403 step-up or reauthentication required, a wrong code, a refusal, a failure).
// A subpath of its own, outside the Module Federation share: each remote bundles these few hundred bytes, and the
// shell's first page does not carry them.
export {
  classifyFailure,
  describeWait,
  isReauthenticationRequired,
  isStepUpRequired,
  type CallFailure,
} from './failure.js';
export {
  useCall,
  type CallOutcome,
  type CallState,
  type CallStatus,
  type UseCallOptions,
} from './useCall.js';
