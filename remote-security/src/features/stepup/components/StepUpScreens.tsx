import { useEffect, useMemo, useReducer } from 'react';
import { Button, Flex, Typography, WaitDialog } from 'shared-ui';
import { useApiClient, useAuth, type ActiveFactorsData } from 'shared-auth';
import { sendEmailChallenge, verifyStepUp } from '../api/stepUpApi.js';
import {
  factorsOf,
  initialStepUpFlow,
  SELECTION_LOADING_MS,
  stepUpFlowReducer,
} from '../model/stepUpFlow.js';
import { clearStepUpState, loadStepUpState, saveStepUpState } from '../model/stepUpStorage.js';
import { CodeForm } from './CodeForm.js';
import { EmailVerify } from './EmailVerify.js';

interface StepUpScreensProps {
  activeFactorsData: ActiveFactorsData;
  /** A code was accepted: the page moves on to NO_CHALLENGE. */
  onVerified: () => void;
}

const titleStyle = { fontSize: 22 };

/** The step-up screens (spec section 2) over the flow reducer; the flow state is kept for 5 minutes. */
export function StepUpScreens({ activeFactorsData, onVerified }: StepUpScreensProps) {
  const { user } = useAuth();
  const client = useApiClient();
  const factors = useMemo(() => factorsOf(activeFactorsData), [activeFactorsData]);
  const [flow, dispatch] = useReducer(stepUpFlowReducer, factors, (list) =>
    initialStepUpFlow(list, loadStepUpState()),
  );

  useEffect(() => saveStepUpState(flow.state), [flow.state]);

  useEffect(() => {
    if (!flow.selectionLoading) return undefined;
    const timer = setTimeout(() => dispatch({ type: 'SELECTION_LOADED' }), SELECTION_LOADING_MS);
    return () => clearTimeout(timer);
  }, [flow.selectionLoading]);

  const verified = () => {
    clearStepUpState();
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
            verify={(code) => verifyStepUp(client, user.sub, 'google-auth', code)}
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
          send={() => sendEmailChallenge(client, user.sub)}
          verify={(code) => verifyStepUp(client, user.sub, 'email', code)}
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
