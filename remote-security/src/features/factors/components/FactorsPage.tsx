import { useEffect } from 'react';
import type { ActiveFactorsData } from 'shared-auth';
import { useFactors } from '../hooks/useFactors.js';
import type { DefaultMethod } from '../../../lib/preferred-method/usePreferredMethod.js';
import { ConfirmItsYouDialog } from '../../../lib/reauthentication/ConfirmItsYouDialog.js';
import { ConfirmDialog } from './ConfirmDialog.js';
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
  /** The holder's default method: "Use by default" on an active factor, "Default" on the one that is (issue 22). */
  defaultMethod?: DefaultMethod;
}

/** The factors page (spec section 2): one section per registered kind of factor (sections.ts). */
export function FactorsPage({
  activeFactorsData,
  onStepUpRequired,
  onRetry,
  onActiveCountChange,
  otherMethods = 0,
  defaultMethod,
}: FactorsPageProps) {
  const facts = useFactors(activeFactorsData, onStepUpRequired, otherMethods, defaultMethod);
  const { state, activeCount, loaded } = facts;

  useEffect(() => {
    if (loaded) onActiveCountChange?.(activeCount);
  }, [loaded, activeCount, onActiveCountChange]);

  return (
    <div>
      {FACTOR_SECTION_LIST.map(([factor, Section]) => (
        <Section key={factor} facts={facts} onRetry={onRetry} />
      ))}
      <ConfirmDialog dialog={state.dialog} onCancel={facts.cancelDialog} onConfirm={facts.confirmDialog} />
      <ConfirmItsYouDialog {...facts.confirmItsYou.dialog} />
    </div>
  );
}
