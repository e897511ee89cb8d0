import { Spin, Typography } from 'shared-ui';
import { useAuth } from 'shared-auth';
import { StepUpScreens } from 'shared-stepup';
import { FactorsPage } from '../../factors/components/FactorsPage.js';
import { useStepUp } from '../hooks/useStepUp.js';

export const SECURITY_INTRO =
  "Protect your account with 2-step verification. Each time you sign in to your F5 account, you'll need your password and a verification code.";

function SecurityContent() {
  const { state, verified, recheck } = useStepUp(true);
  switch (state.status) {
    case 'START':
    case 'LOADING':
      return (
        <div style={{ display: 'grid', placeItems: 'center', minHeight: 200 }}>
          <Spin aria-label="Checking your verification" />
        </div>
      );
    case 'CHALLENGE':
      return <StepUpScreens activeFactorsData={state.activeFactorsData} onVerified={verified} />;
    case 'NO_CHALLENGE':
      return <FactorsPage activeFactorsData={state.activeFactorsData} onStepUpRequired={recheck} />;
  }
}

/** The Security page (spec section 2): step-up first when the server asks for it, then the factors. */
export function SecurityPage() {
  const { isFederated } = useAuth();
  return (
    <section aria-labelledby="security-title" style={{ maxWidth: 760 }}>
      <Typography.Title id="security-title" level={1} style={{ fontSize: 28 }}>
        Security
      </Typography.Title>
      <p>{SECURITY_INTRO}</p>
      {isFederated ? <p>Resource not available for federated users</p> : <SecurityContent />}
    </section>
  );
}
