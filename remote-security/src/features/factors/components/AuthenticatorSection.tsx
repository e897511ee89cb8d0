/** The authenticator app's section: its set-up (the QR code), loaded only when someone sets the app up. */
import { lazy, Suspense } from 'react';
import { Spin } from 'shared-ui';
import { FactorSection, type KindSectionProps } from './FactorSection.js';

const GoogleEnrolment = lazy(() => import('./GoogleEnrolment.js'));

export function AuthenticatorSection({ facts, onRetry }: KindSectionProps) {
  const google = facts.state.views.googleAuth;
  return (
    <FactorSection
      factor="googleAuth"
      title="Google Authenticator"
      text="Use verification codes from the Google Authenticator app on your phone."
      switchLabel="Verification with Authenticator app"
      facts={facts}
      onRetry={onRetry}
    >
      {google.enrolling && google.enrolment === 'NOT_STARTED' ? (
        <Suspense fallback={<Spin aria-label="Loading Google Authenticator setup" />}>
          <GoogleEnrolment
            onActivated={(date) => facts.activated('googleAuth', date)}
            onFailed={(error) => facts.failed('googleAuth', error)}
            guard={facts.guards.googleAuth}
          />
        </Suspense>
      ) : null}
    </FactorSection>
  );
}
