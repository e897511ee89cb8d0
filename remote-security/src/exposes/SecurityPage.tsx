// The module the shell loads (REMOTE_PAGES.remote_security in shared-auth's contract), and what `./mount` renders.
// The page composes the features: the step-up check (security), the step-up screens (shared-stepup), the
// factors, the passkeys and the recovery codes; features never import each other.
import { useCallback, useState } from 'react';
import { Spin, Typography } from 'shared-ui';
import { useAuth, type ActiveFactorsData, type PreferredMethod } from 'shared-auth';
import { factorsOf, StepUpScreens } from 'shared-stepup';
import { FactorsPage } from '../features/factors/components/FactorsPage.js';
import { PasskeysSection } from '../features/passkeys/components/PasskeysSection.js';
import type { PasskeyResume } from '../features/passkeys/hooks/usePasskeys.js';
import { RecoveryCodesSection } from '../features/recovery-codes/components/RecoveryCodesSection.js';
import { useStepUp } from '../features/security/hooks/useStepUp.js';
import { usePreferredMethod } from '../lib/preferred-method/usePreferredMethod.js';

/** BUILD_ID at build time, else the package version (webpack.base.js); 'dev' where nothing defines it (jest). */
const BUILD = typeof __BUILD_ID__ === 'string' ? __BUILD_ID__ : 'dev';

export const SECURITY_INTRO =
  "Protect your account with 2-step verification. Each time you sign in to your F5 account, you'll need your password and a verification code.";

interface SettingsProps {
  activeFactorsData: ActiveFactorsData;
  /** The challenge's default method (issue 22). */
  preferredMethod: PreferredMethod | undefined;
  recheck: () => void;
  /** Generating recovery codes asked for step-up: generate again once verified. */
  generateAfterStepUp: boolean;
  setGenerateAfterStepUp: (value: boolean) => void;
  /** A passkey add or removal asked for step-up: it runs again once verified. */
  passkeyAfterStepUp: PasskeyResume | null;
  setPasskeyAfterStepUp: (value: PasskeyResume | null) => void;
}

/**
 * After step-up: the factors, the passkeys, then the recovery codes, which read their status again when the last
 * 2-step method goes.
 */
function SecuritySettings({
  activeFactorsData,
  preferredMethod,
  recheck,
  generateAfterStepUp,
  setGenerateAfterStepUp,
  passkeyAfterStepUp,
  setPasskeyAfterStepUp,
}: SettingsProps) {
  // The challenge's counts until the factors page and the passkeys section have their own.
  const [factorCount, setFactorCount] = useState(
    () => factorsOf(activeFactorsData).filter((factor) => factor !== 'passkey').length,
  );
  const [passkeyCount, setPasskeyCount] = useState(() => activeFactorsData.passkey?.count ?? 0);
  const activeCount = factorCount + passkeyCount;
  // "Use by default" on the factors and the passkeys; a 403 step_up_required goes back to the check.
  const defaultMethod = usePreferredMethod(preferredMethod, recheck);
  const { methodGone } = defaultMethod;
  const passkeysCounted = useCallback(
    (count: number) => {
      setPasskeyCount(count);
      // The last passkey went: the server forgot them as the default in the same change.
      if (count === 0) methodGone('passkey');
    },
    [methodGone],
  );
  const stepUpToGenerate = useCallback(() => {
    setGenerateAfterStepUp(true);
    recheck();
  }, [recheck, setGenerateAfterStepUp]);
  const started = useCallback(() => setGenerateAfterStepUp(false), [setGenerateAfterStepUp]);
  const stepUpForPasskey = useCallback(
    (resume: PasskeyResume) => {
      setPasskeyAfterStepUp(resume);
      recheck();
    },
    [recheck, setPasskeyAfterStepUp],
  );
  const passkeyResumed = useCallback(() => setPasskeyAfterStepUp(null), [setPasskeyAfterStepUp]);
  return (
    <>
      {/* A step-up that ran out, and 'Try again' on a factor's error view, both go back to the check. */}
      <FactorsPage
        activeFactorsData={activeFactorsData}
        onStepUpRequired={recheck}
        onRetry={recheck}
        onActiveCountChange={setFactorCount}
        otherMethods={passkeyCount}
        defaultMethod={defaultMethod}
      />
      <PasskeysSection
        onStepUpRequired={stepUpForPasskey}
        resume={passkeyAfterStepUp}
        onResumeStarted={passkeyResumed}
        onCountChange={passkeysCounted}
        defaultMethod={defaultMethod}
      />
      <RecoveryCodesSection
        activeCount={activeCount}
        onStepUpRequired={stepUpToGenerate}
        generateAfterStepUp={generateAfterStepUp}
        onGenerateAfterStepUpStarted={started}
      />
    </>
  );
}

function SecurityContent() {
  const { state, verified, recheck } = useStepUp(true);
  // Kept here, above the step-up screens, so it outlives them.
  const [generateAfterStepUp, setGenerateAfterStepUp] = useState(false);
  const [passkeyAfterStepUp, setPasskeyAfterStepUp] = useState<PasskeyResume | null>(null);
  switch (state.status) {
    case 'START':
    case 'LOADING':
      return (
        <div style={{ display: 'grid', placeItems: 'center', minHeight: 200 }}>
          <Spin aria-label="Checking your verification" />
        </div>
      );
    case 'CHALLENGE':
      return (
        <StepUpScreens
          activeFactorsData={state.activeFactorsData}
          recoveryCodes={state.recoveryCodes}
          preferredMethod={state.preferredMethod}
          onVerified={verified}
          onRetry={recheck}
        />
      );
    case 'NO_CHALLENGE':
      return (
        <SecuritySettings
          activeFactorsData={state.activeFactorsData}
          preferredMethod={state.preferredMethod}
          recheck={recheck}
          generateAfterStepUp={generateAfterStepUp}
          setGenerateAfterStepUp={setGenerateAfterStepUp}
          passkeyAfterStepUp={passkeyAfterStepUp}
          setPasskeyAfterStepUp={setPasskeyAfterStepUp}
        />
      );
  }
}

/**
 * The Security page (spec section 2): step-up first when the server asks for it, then the factors. Its root says
 * which build of this remote it is (data-build), for the team, out of the holder's view.
 */
export default function SecurityPage() {
  const { isFederated } = useAuth();
  return (
    <div data-build={BUILD}>
      <section aria-labelledby="security-title" style={{ maxWidth: 760 }}>
        <Typography.Title id="security-title" level={1} style={{ fontSize: 28 }}>
          Security
        </Typography.Title>
        <p>{SECURITY_INTRO}</p>
        {isFederated ? <p>Resource not available for federated users</p> : <SecurityContent />}
      </section>
    </div>
  );
}
