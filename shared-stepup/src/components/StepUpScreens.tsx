import { useEffect, useMemo, useReducer } from 'react';
import { Button, Flex, Typography, WaitDialog } from 'shared-ui';
import { useApiClient, useAuth, type ActiveFactorsData } from 'shared-auth';
import { sendEmailChallenge, verifyStepUp } from '../api/stepUpApi.js';
import { useUnmountSignal } from '../hooks/useUnmountSignal.js';
import {
  factorsOf,
  initialStepUpFlow,
  SELECTION_LOADING_MS,
  stepUpFlowReducer,
} from '../model/stepUpFlow.js';
import { clearStepUpState, loadStepUpState, saveStepUpState } from '../model/stepUpStorage.js';
import { CodeForm } from './CodeForm.js';
import { EmailVerify } from './EmailVerify.js';

export interface StepUpScreensProps {
  activeFactorsData: ActiveFactorsData;
  /** A code was accepted: the page moves on (the Security page to NO_CHALLENGE, the Password page saves). */
  onVerified: () => void;
}

const titleStyle = { fontSize: 22 };

/**
 * The step-up screens (spec section 2) over the flow reducer. The flow state is kept for 5 minutes under the
 * user's own key, so a reload resumes it and another user on the same browser starts at START.
 */
export function StepUpScreens(props: StepUpScreensProps) {
  const { user } = useAuth();
  // A new user (sign-out and in without a reload) gets fresh screens, never the last user's flow in memory.
  return <Screens key={user.sub} sub={user.sub} {...props} />;
}

function Screens({ sub, activeFactorsData, onVerified }: StepUpScreensProps & { sub: string }) {
  const client = useApiClient();
  const signal = useUnmountSignal();
  const factors = useMemo(() => factorsOf(activeFactorsData), [activeFactorsData]);
  const [flow, dispatch] = useReducer(stepUpFlowReducer, factors, (list) =>
    initialStepUpFlow(list, loadStepUpState(sub)),
  );

  useEffect(() => saveStepUpState(sub, flow.state), [sub, flow.state]);

  useEffect(() => {
    if (!flow.selectionLoading) return undefined;
    const timer = setTimeout(() => dispatch({ type: 'SELECTION_LOADED' }), SELECTION_LOADING_MS);
    return () => clearTimeout(timer);
  }, [flow.selectionLoading]);

  const verified = () => {
    clearStepUpState(sub);
    onVerified();
  };
  const cancel = () => dispatch({ type: 'CANCEL' });

  let screen;
  switch (flow.state) {
    case 'START':
      screen = (
        <section aria-labelledby="stepup-start-title">
          <Typography.Title level={2} id="stepup-start-title" style={titleStyle}>
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
        <section aria-labelledby="stepup-select-title">
          <Typography.Title level={2} id="stepup-select-title" style={titleStyle}>
            Select a verification method to continue
          </Typography.Title>
          <Flex vertical gap={12} style={{ maxWidth: 360 }}>
            {factors.includes('googleAuth') ? (
              <Button onClick={() => dispatch({ type: 'SELECT', factor: 'googleAuth' })}>
                Verify with Google Authenticator
              </Button>
            ) : null}
            {factors.includes('email') ? (
              <Button onClick={() => dispatch({ type: 'SELECT', factor: 'email' })}>Verify with Email</Button>
            ) : null}
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
        <section aria-labelledby="stepup-ga-title">
          <Typography.Title level={2} id="stepup-ga-title" style={titleStyle}>
            Please check your code on Google Authenticator
          </Typography.Title>
          <CodeForm
            factor="googleAuth"
            verify={(code) => verifyStepUp(client, sub, 'google-auth', code, { signal: signal() })}
            onVerified={verified}
            onCancel={cancel}
          />
        </section>
      );
      break;
    case 'EMAIL_VERIFY':
      screen = (
        <EmailVerify
          maskedEmail={activeFactorsData.email?.maskedEmail ?? ''}
          send={() => sendEmailChallenge(client, sub, { signal: signal() })}
          verify={(code) => verifyStepUp(client, sub, 'email', code, { signal: signal() })}
          onVerified={verified}
          onCancel={cancel}
          onSendFailed={() => dispatch({ type: 'EMAIL_SEND_FAILED' })}
        />
      );
      break;
    default:
      // SMS_VERIFY (no SMS factor here) and CHALLENGE_ERROR.
      screen = <p>Error</p>;
  }

  return (
    <>
      {screen}
      <WaitDialog open={flow.selectionLoading} title="Loading" />
    </>
  );
}
