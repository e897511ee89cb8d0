import { useCallback, useEffect, useReducer, useRef } from 'react';
import { API_ERROR_CODES, isApiError, useApiClient, useAuth } from 'shared-auth';
import { useCall } from 'shared-auth/async';
import { generateRecoveryCodes, getRecoveryCodesStatus } from '../api/recoveryCodesApi.js';
import { initialRecoveryCodesState, recoveryCodesReducer } from '../model/recoveryCodes.js';

export interface RecoveryCodesOptions {
  /** How many 2-step methods are on (the factors page's count): none left reads the status again. */
  activeCount: number;
  /** Generate answered 403 step_up_required: the page runs the step-up screens, then mounts this section again. */
  onStepUpRequired: () => void;
  /** This section comes back from the step-up screens it asked for: generate again, without asking again. */
  generateAfterStepUp: boolean;
  /** The generation asked for before the step-up has started (the page forgets it). */
  onGenerateAfterStepUpStarted: () => void;
}

/**
 * The recovery-codes section: reads the status (again when no 2-step method is left: the server removes the codes
 * with the last one), generates a set (asking first when one exists), and hands a 403
 * step_up_required to the page's step-up screens, after which the generation runs again by itself, once.
 */
export function useRecoveryCodes({
  activeCount,
  onStepUpRequired,
  generateAfterStepUp,
  onGenerateAfterStepUpStarted,
}: RecoveryCodesOptions) {
  const { user } = useAuth();
  const client = useApiClient();
  const [state, dispatch] = useReducer(recoveryCodesReducer, initialRecoveryCodesState);

  const { run: runStatus, abort: stopStatus } = useCall(
    useCallback(
      (signal: AbortSignal) => getRecoveryCodesStatus(client, user.sub, { signal }),
      [client, user.sub],
    ),
  );
  const { run: runGenerate } = useCall(
    useCallback(
      (signal: AbortSignal) => generateRecoveryCodes(client, user.sub, { signal }),
      [client, user.sub],
    ),
  );

  const load = useCallback(() => {
    dispatch({ type: 'LOAD' });
    void runStatus().then((outcome) => {
      if (outcome.status === 'success') dispatch({ type: 'LOADED', status: outcome.data });
      else if (outcome.status === 'error') dispatch({ type: 'LOAD_FAILED' });
    });
  }, [runStatus]);

  useEffect(() => {
    load();
    return stopStatus;
  }, [load, stopStatus]);

  // Only the last method's going changes the codes. A factor change also ends the session's grant chain, so a read
  // sent with it would race the page's token renewal (a 401, then a renewal that loses the step-up grant).
  const previousCount = useRef(activeCount);
  useEffect(() => {
    if (previousCount.current > 0 && activeCount === 0) load();
    previousCount.current = activeCount;
  }, [activeCount, load]);

  // A generation that follows a step-up this section asked for: a second step_up_required is an error, not a loop.
  const afterStepUp = useRef(false);
  const generate = useCallback(async () => {
    const retried = afterStepUp.current;
    afterStepUp.current = false;
    const outcome = await runGenerate();
    if (outcome.status === 'success') dispatch({ type: 'GENERATED', generated: outcome.data });
    if (outcome.status !== 'error') return;
    const { error, failure } = outcome;
    if (failure.kind === 'step_up_required' && !retried) {
      dispatch({ type: 'STEP_UP_REQUIRED' });
      onStepUpRequired();
    } else if (isApiError(error) && error.code === API_ERROR_CODES.noActiveFactor)
      dispatch({ type: 'GENERATE_REFUSED', reason: 'noActiveFactor' });
    else if (isApiError(error) && error.code === API_ERROR_CODES.recoveryCodesUnavailable)
      dispatch({ type: 'GENERATE_REFUSED', reason: 'unavailable' });
    else dispatch({ type: 'GENERATE_FAILED' });
  }, [runGenerate, onStepUpRequired]);

  // Back from the step-up screens: once the status is read, generate with no second confirmation.
  const ready = state.view === 'READY';
  useEffect(() => {
    if (!generateAfterStepUp || !ready) return;
    onGenerateAfterStepUpStarted();
    if (activeCount === 0 || state.status?.available !== true) return;
    afterStepUp.current = true;
    dispatch({ type: 'GENERATE_AFTER_STEP_UP' });
    void generate();
  }, [generateAfterStepUp, ready, activeCount, state.status, onGenerateAfterStepUpStarted, generate]);

  return {
    state,
    reload: load,
    /** 'Generate recovery codes' runs at once; 'Generate new codes' asks first. */
    generate: () => {
      if (activeCount === 0) return;
      const action = { type: 'GENERATE' } as const;
      dispatch(action);
      if (recoveryCodesReducer(state, action).view === 'GENERATING') void generate();
    },
    confirm: () => {
      if (state.view !== 'CONFIRM_NEW') return;
      dispatch({ type: 'CONFIRM' });
      void generate();
    },
    cancel: () => dispatch({ type: 'CANCEL' }),
    setSaved: (saved: boolean) => dispatch({ type: 'SAVED_CHANGED', saved }),
    done: () => dispatch({ type: 'DONE' }),
  };
}
