import { useEffect, useMemo, useReducer, useRef } from 'react';
import { Button, Flex, Typography, WaitDialog } from 'shared-ui';
import {
  useApiClient,
  useAuth,
  type ActiveFactorsData,
  type ChallengeResponse,
  type StepUpFactorType,
} from 'shared-auth';
import {
  getPasskeyOptions,
  sendEmailChallenge,
  verifyPasskey,
  verifyRecoveryCode,
  verifyStepUp,
} from '../api/stepUpApi.js';
import { PASSKEY_STEP_UP_TEXTS } from '../model/passkey.js';
import { getPasskeyAssertion } from '../webauthn/webauthn.js';
import {
  factorsOf,
  initialStepUpFlow,
  SELECTION_LOADING_MS,
  stepUpFlowReducer,
  type StepUpFlowStatus,
} from '../model/stepUpFlow.js';
import { clearStepUpState, loadStepUpState, saveStepUpState } from '../model/stepUpStorage.js';
import { CodeForm } from './CodeForm.js';
import { EmailVerify } from './EmailVerify.js';
import { PasskeyVerify } from './PasskeyVerify.js';

export interface StepUpScreensProps {
  activeFactorsData: ActiveFactorsData;
  /** The challenge's `recoveryCodes`: when present, the screens offer 'Use a recovery code'. */
  recoveryCodes?: ChallengeResponse['recoveryCodes'];
  /** The challenge's `preferredMethod` (issue 22): Verify opens it first; absent, the fixed order. */
  preferredMethod?: ChallengeResponse['preferredMethod'] | undefined;
  /** A code was accepted: the page moves on (the Security page to NO_CHALLENGE, the Password page saves). */
  onVerified: () => void;
  /**
   * 'Try again' on the 'Error' screen when there is no factor to start from (the challenge could not be loaded):
   * the page loads the challenge again. With factors, the screens go back to START themselves.
   */
  onRetry: () => void;
}

const titleStyle = { fontSize: 22 };

/** Where each screen puts the focus when the flow arrives at it: its heading, or the code field to type in. */
const IDS = {
  start: 'stepup-start-title',
  select: 'stepup-select-title',
  ga: 'stepup-ga-title',
  gaCode: 'stepup-ga-code',
  email: 'stepup-email-title',
  emailCode: 'stepup-email-code',
  recovery: 'stepup-recovery-title',
  recoveryCode: 'stepup-recovery-code',
  passkey: 'stepup-passkey-title',
  passkeyButton: 'stepup-passkey-button',
  error: 'stepup-error',
} as const;
const FOCUS_OF: Record<StepUpFlowStatus, string> = {
  START: IDS.start,
  FACTOR_SELECTION: IDS.select,
  GA_VERIFY: IDS.gaCode,
  EMAIL_VERIFY: IDS.email,
  RECOVERY_CODE_VERIFY: IDS.recoveryCode,
  PASSKEY_VERIFY: IDS.passkey,
  SMS_VERIFY: IDS.error,
  CHALLENGE_ERROR: IDS.error,
};

/**
 * The step-up screens (spec section 2) over the flow reducer. The flow state is kept for 5 minutes under the
 * user's own key, so a reload resumes it and another user on the same browser starts at START.
 */
export function StepUpScreens(props: StepUpScreensProps) {
  const { user } = useAuth();
  // A new user (sign-out and in without a reload) gets fresh screens, never the last user's flow in memory.
  return <Screens key={user.sub} sub={user.sub} {...props} />;
}

/** The selection's button of each method it lists (SMS has no screen of its own here). */
const SELECT_LABELS: Partial<Record<StepUpFactorType, string>> = {
  googleAuth: 'Verify with Google Authenticator',
  email: 'Verify with Email',
  passkey: PASSKEY_STEP_UP_TEXTS.select,
};

function Screens({
  sub,
  activeFactorsData,
  recoveryCodes,
  preferredMethod,
  onVerified,
  onRetry,
}: StepUpScreensProps & { sub: string }) {
  const client = useApiClient();
  // The holder's default first, then the fixed order: the selection lists them so.
  const factors = useMemo(
    () => factorsOf(activeFactorsData, preferredMethod),
    [activeFactorsData, preferredMethod],
  );
  const [flow, dispatch] = useReducer(stepUpFlowReducer, factors, (list) =>
    initialStepUpFlow(list, loadStepUpState(sub), recoveryCodes !== undefined, preferredMethod),
  );

  useEffect(() => saveStepUpState(sub, flow.status), [sub, flow.status]);

  useEffect(() => {
    if (!flow.selectionLoading) return undefined;
    const timer = setTimeout(() => dispatch({ type: 'SELECTION_LOADED' }), SELECTION_LOADING_MS);
    return () => clearTimeout(timer);
  }, [flow.selectionLoading]);

  // Each new screen takes the focus, as the profile and password pages do: the button that was pressed is gone.
  // Not on the first screen: the page (or the dialog) that shows the screens places the focus then.
  const shown = useRef(flow.status);
  useEffect(() => {
    if (shown.current === flow.status) return;
    shown.current = flow.status;
    document.getElementById(FOCUS_OF[flow.status])?.focus();
  }, [flow.status]);

  const verified = () => {
    clearStepUpState(sub);
    onVerified();
  };
  const cancel = () => dispatch({ type: 'CANCEL' });
  const retry = () => (factors.length > 0 || flow.recoveryCodes ? dispatch({ type: 'RETRY' }) : onRetry());
  // Offered on the selection and under a code screen, for a holder who has lost the phone or the mailbox.
  const recoveryCodeLink = flow.recoveryCodes ? (
    <Button
      type="link"
      onClick={() => dispatch({ type: 'USE_RECOVERY_CODE' })}
      style={{ alignSelf: 'flex-start', paddingLeft: 0 }}
    >
      Use a recovery code
    </Button>
  ) : null;

  // Under the default method's screen: the other methods, one click away.
  const otherMethodsLink =
    flow.preferred !== undefined && factors.length > 1 ? (
      <Button
        type="link"
        onClick={() => dispatch({ type: 'OTHER_METHODS' })}
        style={{ alignSelf: 'flex-start', paddingLeft: 0 }}
      >
        Use another method
      </Button>
    ) : null;

  let screen;
  switch (flow.status) {
    case 'START':
      screen = (
        <section aria-labelledby={IDS.start}>
          <Typography.Title level={2} id={IDS.start} tabIndex={-1} style={titleStyle}>
            Verify to continue
          </Typography.Title>
          <p>You will access security information after verification.</p>
          <Button type="primary" onClick={() => dispatch({ type: 'VERIFY' })}>
            Verify
          </Button>
        </section>
      );
      break;
    case 'FACTOR_SELECTION':
      screen = (
        <section aria-labelledby={IDS.select}>
          <Typography.Title level={2} id={IDS.select} tabIndex={-1} style={titleStyle}>
            Select a verification method to continue
          </Typography.Title>
          <Flex vertical gap={12} style={{ maxWidth: 360 }}>
            {factors.map((factor) => {
              const label = SELECT_LABELS[factor];
              return label ? (
                <Button key={factor} onClick={() => dispatch({ type: 'SELECT', factor })}>
                  {label}
                </Button>
              ) : null;
            })}
            {recoveryCodeLink}
            <Button
              type="link"
              onClick={() => dispatch({ type: 'BACK' })}
              style={{ alignSelf: 'flex-start' }}
            >
              Back
            </Button>
          </Flex>
        </section>
      );
      break;
    case 'GA_VERIFY':
      screen = (
        <section aria-labelledby={IDS.ga}>
          <Typography.Title level={2} id={IDS.ga} tabIndex={-1} style={titleStyle}>
            Please check your code on Google Authenticator
          </Typography.Title>
          <CodeForm
            factor="googleAuth"
            codeId={IDS.gaCode}
            verify={(signal, code) => verifyStepUp(client, sub, 'google-auth', code, { signal })}
            onVerified={verified}
            onCancel={cancel}
          />
          {otherMethodsLink}
          {recoveryCodeLink}
        </section>
      );
      break;
    case 'EMAIL_VERIFY':
      screen = (
        <>
          <EmailVerify
            maskedEmail={activeFactorsData.email?.maskedEmail ?? ''}
            titleId={IDS.email}
            codeId={IDS.emailCode}
            send={(signal) => sendEmailChallenge(client, sub, { signal })}
            verify={(signal, code) => verifyStepUp(client, sub, 'email', code, { signal })}
            onVerified={verified}
            onCancel={cancel}
            onSendFailed={() => dispatch({ type: 'EMAIL_SEND_FAILED' })}
          />
          {otherMethodsLink}
          {recoveryCodeLink}
        </>
      );
      break;
    case 'PASSKEY_VERIFY':
      screen = (
        <>
          <PasskeyVerify
            titleId={IDS.passkey}
            buttonId={IDS.passkeyButton}
            verify={async (signal) => {
              const options = await getPasskeyOptions(client, sub, { signal });
              const response = await getPasskeyAssertion(options, signal);
              await verifyPasskey(client, sub, response, { signal });
            }}
            onVerified={verified}
            onCancel={cancel}
          />
          {otherMethodsLink}
          {recoveryCodeLink}
        </>
      );
      break;
    case 'RECOVERY_CODE_VERIFY':
      screen = (
        <section aria-labelledby={IDS.recovery}>
          <Typography.Title level={2} id={IDS.recovery} tabIndex={-1} style={titleStyle}>
            Use a recovery code
          </Typography.Title>
          <p>Enter one of the recovery codes you saved. Each code works once.</p>
          <CodeForm
            factor="recoveryCode"
            codeId={IDS.recoveryCode}
            verify={(signal, code) => verifyRecoveryCode(client, sub, code, { signal })}
            onVerified={verified}
            onCancel={cancel}
            onBack={() => dispatch({ type: 'BACK' })}
          />
        </section>
      );
      break;
    default:
      // SMS_VERIFY (no SMS factor here) and CHALLENGE_ERROR: the spec's plain 'Error', and a way out of it.
      screen = (
        <div>
          <p id={IDS.error} tabIndex={-1}>
            Error
          </p>
          <Button onClick={retry}>Try again</Button>
        </div>
      );
  }

  return (
    <>
      {screen}
      <WaitDialog open={flow.selectionLoading} title="Loading" />
    </>
  );
}
