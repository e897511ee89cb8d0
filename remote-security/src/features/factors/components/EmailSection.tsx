/** The email factor's section: the masked address once verified, and the set-up that sends a code to it. */
import { Tag } from 'shared-ui';
import { EmailEnrolment } from './EmailEnrolment.js';
import { FactorSection, type KindSectionProps } from './FactorSection.js';

export function EmailSection({ facts, onRetry }: KindSectionProps) {
  const { state, maskedEmail } = facts;
  const email = state.views.email;
  // 'Your Email Factor' and 'Verified' describe email codes in use: not once email is turned off (spec section 2:
  // active factors show their date, and the email factor 'Verified').
  const emailOn = state.data.email?.status === 'ACTIVE';
  return (
    <FactorSection
      factor="email"
      title={emailOn ? 'Your Email Factor' : 'Email'}
      text="Use verification codes via email."
      switchLabel="Verification with email"
      facts={facts}
      onRetry={onRetry}
    >
      {emailOn ? (
        <p style={{ margin: '8px 0 0' }}>
          {state.data.email?.maskedEmail ?? maskedEmail}{' '}
          <Tag color="success" style={{ marginLeft: 8 }}>
            Verified
          </Tag>
        </p>
      ) : null}
      {email.enrolling && (email.enrolment === 'NOT_STARTED' || email.enrolment === 'PENDING_ACTIVATION') ? (
        <EmailEnrolment
          maskedEmail={maskedEmail}
          pending={email.enrolment === 'PENDING_ACTIVATION'}
          sendOnShow={email.sendOnShow}
          onCodeSent={() => facts.codeSent('email')}
          onActivated={(date) => facts.activated('email', date)}
          onFailed={(error) => facts.failed('email', error)}
          guard={facts.guards.email}
        />
      ) : null}
    </FactorSection>
  );
}
