import { useCallback, useEffect, useMemo, useReducer, useRef } from 'react';
import { useToast } from 'shared-ui/toast';
import {
  maskEmail,
  useApiClient,
  useAuth,
  type ActiveFactorsData,
  type FactorStatusResponse,
} from 'shared-auth';
import { classifyFailure, isStepUpRequired, useCall } from 'shared-auth/async';
import {
  useConfirmItsYou,
  type ReauthenticationGuard,
} from '../../../lib/reauthentication/useConfirmItsYou.js';
import { ReauthenticationEnded } from '../../../lib/reauthentication/reauthentication.js';
import type { DefaultMethod } from '../../../lib/preferred-method/usePreferredMethod.js';
import { switchId, titleId } from '../components/FactorSection.js';
import { getDetails, optIn, optOut, reset } from '../api/factorsApi.js';
import { countActive } from '../model/factors.js';
import { factorsReducer, initialFactorsState } from '../model/factorsReducer.js';
import {
  FACTOR_KIND_NAMES,
  factorKind,
  perKind,
  type CodeSentFirstKind,
  type FactorKind,
  type FactorKindTexts,
} from '../model/kinds/index.js';

/** A key remembered across 'Sign in again' that names one of the page's factors. */
const isFactorKind = (key: string): key is FactorKind =>
  (FACTOR_KIND_NAMES as readonly string[]).includes(key);

/** The toast of an event of the factor, in its kind's words. */
const toastText = (factor: FactorKind, event: keyof FactorKindTexts['toasts']) =>
  factorKind(factor).texts.toasts[event];

/**
 * The factors page: details of every registered kind (model/kinds/), the switches, the confirmations and removal.
 * A 403 that asks for step-up (the 5 minutes ran out) hands back to the step-up check instead of showing the error
 * view. Turning on the first factor (enrol, activate, opt-in) may need the password again: "Confirm it's you",
 * then the same call.
 */
/**
 * @param otherMethods the holder's other active 2-step methods (passkeys): they count for the last-method rule, so a
 * factor's switch and 'remove' are offered when a passkey would remain.
 * @param defaultMethod the holder's default method ("Use by default", issue 22): a factor turned off or removed is
 * no default any more.
 */
export function useFactors(
  activeFactorsData: ActiveFactorsData,
  onStepUpRequired: () => void,
  otherMethods = 0,
  defaultMethod?: DefaultMethod,
) {
  const { user } = useAuth();
  const client = useApiClient();
  const toast = useToast();
  const [state, dispatch] = useReducer(factorsReducer, initialFactorsState);
  const loaded = Object.values(state.views).every((view) => view.enrolment !== 'INITIAL');
  const confirmItsYou = useConfirmItsYou<FactorKind>({
    feature: 'factors',
    isKey: isFactorKind,
    ready: loaded,
    // Back from 'Sign in again': the switch turns on again by itself, and its call runs (defined below).
    onResume: (factor) => void switchOn(factor, true),
    // To the control whose call asked for it, once that call has answered (a switch is disabled while it runs);
    // failing that, to the factor's switch, then to its heading.
    focusBack: (factor) =>
      state.views[factor].busy
        ? 'LATER'
        : [document.getElementById(switchId(factor)), document.getElementById(titleId(factor))],
  });
  const { guard } = confirmItsYou;
  const guards = useMemo(
    () => perKind<ReauthenticationGuard>((factor) => (call) => guard(factor, call)),
    [guard],
  );
  const maskedEmail = useMemo(() => maskEmail(user.email), [user.email]);
  // Event handlers read the latest state through this ref.
  const stateRef = useRef(state);
  useEffect(() => {
    stateRef.current = state;
  }, [state]);

  const fail = useCallback(
    (factor: FactorKind, error: unknown) => {
      if (error instanceof ReauthenticationEnded) {
        // Cancelled: the factor simply stays off. A 409: the account has a factor by now, so step-up applies.
        if (error.reason === 'CANCELLED') dispatch({ type: 'TURN_ON_CANCELLED', factor });
        else onStepUpRequired();
      } else if (classifyFailure(error).kind === 'step_up_required') onStepUpRequired();
      else dispatch({ type: 'FAILED', factor });
    },
    [onStepUpRequired],
  );

  // Every factor's details in one run: a failure of one is that factor's error view, not the other's.
  const details = useCall(
    useCallback(
      (signal: AbortSignal) =>
        Promise.allSettled(
          FACTOR_KIND_NAMES.map((factor) => getDetails(client, factor, user.sub, { signal })),
        ),
      [client, user.sub],
    ),
  );
  const { run: loadDetails, abort: stopDetails } = details;
  useEffect(() => {
    void loadDetails().then((outcome) => {
      if (outcome.status !== 'success') return;
      outcome.data.forEach((result, index) => {
        const factor = FACTOR_KIND_NAMES[index];
        if (!factor) return;
        if (result.status === 'fulfilled') {
          dispatch({
            type: 'DETAILS_LOADED',
            factor,
            active: activeFactorsData[factor] !== undefined,
            enrolled: result.value.enrolled,
            enrolledDate: result.value.enrolledDate,
            maskedEmail: activeFactorsData.email?.maskedEmail ?? maskedEmail,
            turnOff: result.value.turnOff ?? 'keeps',
          });
        } else if (isStepUpRequired(result.reason)) onStepUpRequired();
        else dispatch({ type: 'DETAILS_FAILED', factor });
      });
    });
    return stopDetails;
  }, [loadDetails, stopDetails, activeFactorsData, maskedEmail, onStepUpRequired]);

  // A toggle or removal per factor: several factors may be busy at once, and leaving the page aborts them.
  const runFactorCall = useCallback(
    (signal: AbortSignal, call: (signal: AbortSignal) => Promise<FactorStatusResponse>) => call(signal),
    [],
  );
  // One call per registered kind. The list is a module constant, so the hooks run in the same order every render.
  // eslint-disable-next-line react-hooks/rules-of-hooks
  const calls = perKind(() => useCall(runFactorCall));
  const callsRef = useRef(calls);
  useEffect(() => {
    callsRef.current = calls;
  });

  /** `resumed`: by the page, after 'Sign in again' (email's set-up then sends its code by itself). */
  const switchOn = useCallback(
    async (factor: FactorKind, resumed = false) => {
      const view = stateRef.current.views[factor];
      dispatch({ type: 'SWITCH_ON', factor, resumed });
      if (view.enrolment !== 'ACTIVE' || view.busy) return;
      const outcome = await callsRef.current[factor].run((signal) =>
        guard(factor, () => optIn(client, factor, user.sub, { signal })),
      );
      if (outcome.status === 'success') {
        dispatch({ type: 'OPT_IN_SUCCEEDED', factor, enrolledDate: outcome.data.enrolledDate, maskedEmail });
        toast(toastText(factor, 'turnedOn'));
      } else if (outcome.status === 'error') fail(factor, outcome.error);
    },
    [client, user.sub, toast, fail, guard, maskedEmail],
  );

  const confirm = useCallback(async () => {
    const { dialog } = stateRef.current;
    if (!dialog) return;
    dispatch({ type: 'DIALOG_CONFIRM' });
    const { factor, kind } = dialog;
    const outcome = await callsRef.current[factor].run((signal) =>
      kind === 'turnOff'
        ? optOut(client, factor, user.sub, { signal })
        : reset(client, factor, user.sub, { signal }),
    );
    if (outcome.status === 'error') fail(factor, outcome.error);
    if (outcome.status !== 'success') return;
    // Any ok answer means done.
    dispatch({ type: kind === 'turnOff' ? 'OPT_OUT_SUCCEEDED' : 'RESET_SUCCEEDED', factor });
    defaultMethod?.methodGone(factor);
    toast(toastText(factor, kind === 'turnOff' ? 'turnedOff' : 'removed'));
  }, [client, user.sub, toast, fail, defaultMethod]);

  const activated = useCallback(
    (factor: FactorKind, enrolledDate: string | null) => {
      dispatch({ type: 'ACTIVATED', factor, enrolledDate, maskedEmail });
      toast(toastText(factor, 'activated'));
    },
    [maskedEmail, toast],
  );

  return {
    state,
    /** Every factor's details have answered. */
    loaded,
    activeCount: countActive(state.data),
    otherMethods,
    maskedEmail,
    switchOn: (factor: FactorKind) => void switchOn(factor),
    switchOff: (factor: FactorKind) => dispatch({ type: 'SWITCH_OFF', factor }),
    remove: (factor: FactorKind) => dispatch({ type: 'REMOVE', factor }),
    cancelDialog: () => dispatch({ type: 'DIALOG_CANCEL' }),
    confirmDialog: () => void confirm(),
    codeSent: (factor: CodeSentFirstKind) => dispatch({ type: 'CODE_SENT', factor }),
    activated,
    failed: fail,
    guards,
    confirmItsYou,
    defaultMethod,
  };
}
