import { lazy, Suspense, useEffect, type ReactNode } from 'react';
import { Button, Flex, Spin, Tag, Typography } from 'shared-ui';
import { Switch } from 'shared-ui/forms';
import type { ActiveFactorsData } from 'shared-auth';
import { useFactors } from '../hooks/useFactors.js';
import type { FactorKind } from '../model/enrolment.js';
import { addedLabel, canRemove, isSwitchDisabled } from '../model/factors.js';
import { ConfirmItsYouDialog } from './ConfirmItsYouDialog.js';
import { focusFirst } from './focusFirst.js';
import { ConfirmDialog } from './ConfirmDialog.js';
import { EmailEnrolment } from './EmailEnrolment.js';
import { UNEXPECTED_ERROR } from './texts.js';

// The authenticator enrolment (and its QR code) loads only when someone sets the app up.
const GoogleEnrolment = lazy(() => import('./GoogleEnrolment.js'));

const switchId = (factor: FactorKind) => `factor-${factor}-switch`;
const titleId = (factor: FactorKind) => `factor-${factor}-title`;

interface FactorsPageProps {
  activeFactorsData: ActiveFactorsData;
  onStepUpRequired: () => void;
  /** 'Try again' on a factor's error view: the page starts over (the step-up check, then the details). */
  onRetry: () => void;
}

interface SectionProps {
  factor: FactorKind;
  title: string;
  text: string;
  switchLabel: string;
  children?: ReactNode;
  facts: ReturnType<typeof useFactors>;
  onRetry: () => void;
}

function FactorSection({ factor, title, text, switchLabel, children, facts, onRetry }: SectionProps) {
  const { state, activeCount } = facts;
  const view = state[factor];
  const entry = state.data[factor];
  const on = entry?.status === 'ACTIVE';
  const loading = view.enrolment === 'INITIAL' || view.busy;
  const disabled = isSwitchDisabled(factor, { loading, on, factorsCount: state.factorsCount, activeCount });
  const added = on ? addedLabel(entry?.enrolledDate) : undefined;

  return (
    <section aria-labelledby={titleId(factor)} style={{ borderTop: '1px solid #f0f0f0', padding: '16px 0' }}>
      {/* The switch leads the row: top-right toasts never cover it. */}
      <Flex align="flex-start" gap={16}>
        <Switch
          id={switchId(factor)}
          aria-label={switchLabel}
          checked={on || view.enrolling}
          disabled={disabled}
          loading={view.busy}
          onChange={(checked) => (checked ? facts.switchOn(factor) : facts.switchOff(factor))}
          style={{ marginTop: 4 }}
        />
        <div>
          {/* Focusable from script only: where the focus goes when no control of the section can take it. */}
          <Typography.Title level={2} id={titleId(factor)} tabIndex={-1} style={{ fontSize: 20, margin: 0 }}>
            {title}
          </Typography.Title>
          <p style={{ margin: '4px 0 0' }}>{text}</p>
        </div>
      </Flex>
      {view.enrolment === 'ERROR' ? (
        <>
          <p role="alert" style={{ marginTop: 12 }}>
            {UNEXPECTED_ERROR}
          </p>
          <Button onClick={onRetry}>Try again</Button>
        </>
      ) : view.enrolment === 'INITIAL' ? (
        <Spin aria-label={`Loading ${title}`} style={{ marginTop: 12 }} />
      ) : (
        <>
          {children}
          {added ? <p style={{ margin: '8px 0 0' }}>{added}</p> : null}
          {view.enrolment === 'ACTIVE' && canRemove(activeCount) ? (
            <Button type="link" onClick={() => facts.remove(factor)} style={{ paddingLeft: 0 }}>
              remove
            </Button>
          ) : null}
        </>
      )}
    </section>
  );
}

/** The factors page (spec section 2): an email section and an authenticator-app section. */
export function FactorsPage({ activeFactorsData, onStepUpRequired, onRetry }: FactorsPageProps) {
  const facts = useFactors(activeFactorsData, onStepUpRequired);
  const { state, maskedEmail } = facts;
  const email = state.email;
  const google = state.googleAuth;
  // 'Your Email Factor' and 'Verified' describe email codes in use: not once email is turned off (spec section 2:
  // active factors show their date, and the email factor 'Verified').
  const emailOn = state.data.email?.status === 'ACTIVE';
  const { reauthentication } = facts;
  const { returnFocus, factor: reauthenticatedFactor } = reauthentication.state;

  // "Confirm it's you" has closed: the focus goes back to the control whose call asked for it, once its call has
  // answered (a switch is disabled while it runs); failing that, to the factor's switch, then to its heading.
  const reauthenticatedBusy = reauthenticatedFactor ? state[reauthenticatedFactor].busy : false;
  useEffect(() => {
    if (!returnFocus || !reauthenticatedFactor || reauthenticatedBusy) return;
    focusFirst(
      reauthentication.opener(),
      document.getElementById(switchId(reauthenticatedFactor)),
      document.getElementById(titleId(reauthenticatedFactor)),
    );
    reauthentication.focusReturned();
  }, [returnFocus, reauthenticatedFactor, reauthenticatedBusy, reauthentication]);

  return (
    <div>
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
        {email.enrolling &&
        (email.enrolment === 'NOT_STARTED' || email.enrolment === 'PENDING_ACTIVATION') ? (
          <EmailEnrolment
            maskedEmail={maskedEmail}
            pending={email.enrolment === 'PENDING_ACTIVATION'}
            onCodeSent={facts.codeSent}
            onActivated={(date) => facts.activated('email', date)}
            onFailed={(error) => facts.failed('email', error)}
            guard={facts.guards.email}
          />
        ) : null}
      </FactorSection>
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
      <ConfirmDialog dialog={state.dialog} onCancel={facts.cancelDialog} onConfirm={facts.confirmDialog} />
      <ConfirmItsYouDialog
        status={reauthentication.state.status}
        error={reauthentication.state.error}
        onConfirm={reauthentication.submit}
        onSignInAgain={reauthentication.signInAgain}
        onCancel={reauthentication.cancel}
        afterClose={reauthentication.closed}
      />
    </div>
  );
}
