import { useEffect } from 'react';
import type { ActiveFactorsData } from 'shared-auth';
import { useFactors } from '../hooks/useFactors.js';
import { ConfirmItsYouDialog } from '../../../lib/reauthentication/ConfirmItsYouDialog.js';
import { focusFirst } from '../../../lib/focusFirst.js';
import { ConfirmDialog } from './ConfirmDialog.js';
import { switchId, titleId } from './FactorSection.js';
import { FACTOR_SECTION_LIST } from './sections.js';

interface FactorsPageProps {
  activeFactorsData: ActiveFactorsData;
  onStepUpRequired: () => void;
  /** 'Try again' on a factor's error view: the page starts over (the step-up check, then the details). */
  onRetry: () => void;
  /** How many factors are on, once every factor's details have answered, and after each change. */
  onActiveCountChange?: (count: number) => void;
  /** The holder's passkeys: other active 2-step methods, counted by the last-method rule. */
  otherMethods?: number;
}

/** The factors page (spec section 2): one section per registered kind of factor (sections.ts). */
export function FactorsPage({
  activeFactorsData,
  onStepUpRequired,
  onRetry,
  onActiveCountChange,
  otherMethods = 0,
}: FactorsPageProps) {
  const facts = useFactors(activeFactorsData, onStepUpRequired, otherMethods);
  const { state, activeCount } = facts;

  const loaded = Object.values(state.views).every((view) => view.enrolment !== 'INITIAL');
  useEffect(() => {
    if (loaded) onActiveCountChange?.(activeCount);
  }, [loaded, activeCount, onActiveCountChange]);

  const { reauthentication } = facts;
  const { returnFocus, factor: reauthenticatedFactor } = reauthentication.state;

  // "Confirm it's you" has closed: the focus goes back to the control whose call asked for it, once its call has
  // answered (a switch is disabled while it runs); failing that, to the factor's switch, then to its heading.
  const reauthenticatedBusy = reauthenticatedFactor ? state.views[reauthenticatedFactor].busy : false;
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
      {FACTOR_SECTION_LIST.map(([factor, Section]) => (
        <Section key={factor} facts={facts} onRetry={onRetry} />
      ))}
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
