import { useCallback, useEffect, useMemo, useReducer, useRef } from 'react';
import { App } from 'shared-ui';
import { maskEmail, useApiClient, useAuth, type ActiveFactorsData } from 'shared-auth';
import { isStepUpRequired } from 'shared-stepup';
import {
  useReauthentication,
  type ReauthenticationGuard,
} from '../../reauthentication/hooks/useReauthentication.js';
import { ReauthenticationEnded } from '../../reauthentication/model/reauthentication.js';
import { getDetails, optIn, optOut, reset } from '../api/factorsApi.js';
import type { FactorKind } from '../model/enrolment.js';
import { countActive } from '../model/factors.js';
import { factorsReducer, initialFactorsState } from '../model/factorsReducer.js';

const TOAST_SECONDS = 30;

export const TOASTS = {
  turnedOn: {
    googleAuth: 'Verification with Authenticator app is turned on.',
    email: 'Verification with email is turned on.',
  },
  turnedOff: {
    googleAuth: 'Verification with Authenticator app is turned off.',
    email: 'Verification with email is turned off.',
  },
  removed: {
    googleAuth: 'Google Authenticator was removed.',
    email: 'Your email was removed from 2-step verification.',
  },
  activated: { googleAuth: 'Google Authenticator is set up.', email: 'Verification with email is set up.' },
} as const;

/**
 * The factors page: details of both factors, the switches, the confirmations and removal. A 403 that asks for
 * step-up (the 5 minutes ran out) hands back to the step-up check instead of showing the error view. Turning on
 * the first factor (enrol, activate, opt-in) may need the password again: "Confirm it's you", then the same call.
 */
export function useFactors(activeFactorsData: ActiveFactorsData, onStepUpRequired: () => void) {
  const { user } = useAuth();
  const client = useApiClient();
  const { notification } = App.useApp();
  const [state, dispatch] = useReducer(factorsReducer, initialFactorsState);
  const reauthentication = useReauthentication();
  const { guard } = reauthentication;
  const guards = useMemo<Record<FactorKind, ReauthenticationGuard>>(
    () => ({
      googleAuth: (call) => guard('googleAuth', call),
      email: (call) => guard('email', call),
    }),
    [guard],
  );
  const maskedEmail = useMemo(() => maskEmail(user.email), [user.email]);
  // Event handlers read the latest state through this ref.
  const stateRef = useRef(state);
  useEffect(() => {
    stateRef.current = state;
  }, [state]);

  const toast = useCallback(
    (title: string) => notification.success({ title, placement: 'topRight', duration: TOAST_SECONDS }),
    [notification],
  );

  const fail = useCallback(
    (factor: FactorKind, error: unknown) => {
      if (error instanceof ReauthenticationEnded) {
        // Cancelled: the factor simply stays off. A 409: the account has a factor by now, so step-up applies.
        if (error.reason === 'CANCELLED') dispatch({ type: 'TURN_ON_CANCELLED', factor });
        else onStepUpRequired();
      } else if (isStepUpRequired(error)) onStepUpRequired();
      else dispatch({ type: 'FAILED', factor });
    },
    [onStepUpRequired],
  );

  useEffect(() => {
    let current = true;
    for (const factor of ['googleAuth', 'email'] as const) {
      getDetails(client, factor, user.sub).then(
        (details) =>
          current &&
          dispatch({
            type: 'DETAILS_LOADED',
            factor,
            active: activeFactorsData[factor] !== undefined,
            enrolled: details.enrolled,
            enrolledDate: details.enrolledDate,
            maskedEmail: activeFactorsData.email?.maskedEmail ?? maskedEmail,
          }),
        (error: unknown) => {
          if (!current) return;
          if (isStepUpRequired(error)) onStepUpRequired();
          else dispatch({ type: 'DETAILS_FAILED', factor });
        },
      );
    }
    return () => {
      current = false;
    };
  }, [client, user.sub, activeFactorsData, maskedEmail, onStepUpRequired]);

  const switchOn = useCallback(
    async (factor: FactorKind) => {
      const view = stateRef.current[factor];
      dispatch({ type: 'SWITCH_ON', factor });
      if (view.enrolment !== 'ACTIVE' || view.busy) return;
      try {
        const status = await guard(factor, () => optIn(client, factor, user.sub));
        dispatch({ type: 'OPT_IN_SUCCEEDED', factor, enrolledDate: status.enrolledDate });
        toast(TOASTS.turnedOn[factor]);
      } catch (error) {
        fail(factor, error);
      }
    },
    [client, user.sub, toast, fail, guard],
  );

  const confirm = useCallback(async () => {
    const { dialog } = stateRef.current;
    if (!dialog) return;
    dispatch({ type: 'DIALOG_CONFIRM' });
    const { factor, kind } = dialog;
    try {
      if (kind === 'turnOff') {
        await optOut(client, factor, user.sub);
        dispatch({ type: 'OPT_OUT_SUCCEEDED', factor });
        toast(TOASTS.turnedOff[factor]);
      } else {
        await reset(client, factor, user.sub);
        dispatch({ type: 'RESET_SUCCEEDED', factor });
        toast(TOASTS.removed[factor]);
      }
    } catch (error) {
      fail(factor, error);
    }
  }, [client, user.sub, toast, fail]);

  const activated = useCallback(
    (factor: FactorKind, enrolledDate: string | null) => {
      dispatch({ type: 'ACTIVATED', factor, enrolledDate, maskedEmail });
      toast(TOASTS.activated[factor]);
    },
    [maskedEmail, toast],
  );

  return {
    state,
    activeCount: countActive(state.data),
    maskedEmail,
    switchOn: (factor: FactorKind) => void switchOn(factor),
    switchOff: (factor: FactorKind) => dispatch({ type: 'SWITCH_OFF', factor }),
    remove: (factor: FactorKind) => dispatch({ type: 'REMOVE', factor }),
    cancelDialog: () => dispatch({ type: 'DIALOG_CANCEL' }),
    confirmDialog: () => void confirm(),
    codeSent: () => dispatch({ type: 'CODE_SENT', factor: 'email' }),
    activated,
    failed: fail,
    guards,
    reauthentication,
  };
}
