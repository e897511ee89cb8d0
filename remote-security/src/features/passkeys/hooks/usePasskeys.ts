import { useCallback, useEffect, useReducer, useRef } from 'react';
import { useToast } from 'shared-ui/toast';
import { useApiClient, useAuth } from 'shared-auth';
import { classifyFailure, useCall } from 'shared-auth/async';
import { createPasskey } from 'shared-stepup';
import { useReauthentication } from '../../../lib/reauthentication/useReauthentication.js';
import { ReauthenticationEnded } from '../../../lib/reauthentication/reauthentication.js';
import {
  getPasskeys,
  getRegistrationOptions,
  removePasskey,
  renamePasskey,
  verifyRegistration,
} from '../api/passkeysApi.js';
import {
  addFailureNotice,
  callFailureNotice,
  cleanName,
  initialPasskeysState,
  passkeysReducer,
  type PasskeysState,
} from '../model/passkeys.js';
import { PASSKEYS_TEXTS as TEXTS } from '../model/texts.js';

/** What the section does by itself once back from the step-up screens it asked for. */
export type PasskeyResume = { type: 'ADD' } | { type: 'REMOVE'; id: string };

export interface PasskeysOptions {
  /** A call answered 403 step_up_required: the page runs the step-up screens, then mounts the section again. */
  onStepUpRequired: (resume: PasskeyResume) => void;
  /** Back from those step-up screens: what to do again, without asking again. */
  resume: PasskeyResume | null;
  /** The resumed action has started (the page forgets it). */
  onResumeStarted: () => void;
  /** How many passkeys the holder has, each time the list is read or changes. */
  onCountChange?: (count: number) => void;
}

/** The key of "Confirm it's you" (lib/reauthentication) for this section. */
const REAUTHENTICATION_KEY = 'passkey';

/**
 * The Passkeys section: reads the list; adds a passkey (the server's options, the browser's ceremony, the server's
 * check; "Confirm it's you" first when it would be the first 2-step method, as the factors do), then asks for its
 * name; renames; removes after a confirmation. A 403 step_up_required hands over to the page's step-up screens,
 * after which the add or the removal runs again by itself, once.
 */
export function usePasskeys({ onStepUpRequired, resume, onResumeStarted, onCountChange }: PasskeysOptions) {
  const { user } = useAuth();
  const client = useApiClient();
  const toast = useToast();
  const [state, dispatch] = useReducer(passkeysReducer, initialPasskeysState);
  const reauthentication = useReauthentication<typeof REAUTHENTICATION_KEY>();
  const { guard } = reauthentication;
  const stateRef = useRef<PasskeysState>(state);
  useEffect(() => {
    stateRef.current = state;
  }, [state]);

  const { run: runList, abort: stopList } = useCall(
    useCallback((signal: AbortSignal) => getPasskeys(client, user.sub, { signal }), [client, user.sub]),
  );
  const { run: runAdd } = useCall(
    useCallback(
      async (signal: AbortSignal) => {
        const options = await guard(REAUTHENTICATION_KEY, () =>
          getRegistrationOptions(client, user.sub, { signal }),
        );
        const response = await createPasskey(options, signal);
        return guard(REAUTHENTICATION_KEY, () => verifyRegistration(client, user.sub, response, { signal }));
      },
      [client, user.sub, guard],
    ),
  );
  const { run: runRename } = useCall(
    useCallback(
      (signal: AbortSignal, id: string, name: string) =>
        renamePasskey(client, user.sub, id, name, { signal }),
      [client, user.sub],
    ),
  );
  const { run: runRemove } = useCall(
    useCallback(
      (signal: AbortSignal, id: string) => removePasskey(client, user.sub, id, { signal }),
      [client, user.sub],
    ),
  );

  const load = useCallback(() => {
    dispatch({ type: 'LOAD' });
    void runList().then((outcome) => {
      if (outcome.status === 'success') dispatch({ type: 'LOADED', list: outcome.data });
      else if (outcome.status === 'error') dispatch({ type: 'LOAD_FAILED' });
    });
  }, [runList]);

  useEffect(() => {
    load();
    return stopList;
  }, [load, stopList]);

  const count = state.list?.passkeys.length;
  useEffect(() => {
    if (count !== undefined) onCountChange?.(count);
  }, [count, onCountChange]);

  // An add or a removal that follows the step-up it asked for: a second step_up_required is an error, not a loop.
  const afterStepUp = useRef(false);
  const stepUpOnce = useCallback(
    (error: unknown, resumeWith: PasskeyResume): boolean => {
      const retried = afterStepUp.current;
      afterStepUp.current = false;
      if (retried || classifyFailure(error).kind !== 'step_up_required') return false;
      onStepUpRequired(resumeWith);
      return true;
    },
    [onStepUpRequired],
  );

  const add = useCallback(async () => {
    const outcome = await runAdd();
    if (outcome.status === 'success') {
      afterStepUp.current = false;
      dispatch({ type: 'ADDED', passkey: outcome.data });
      toast(TEXTS.added);
      return;
    }
    if (outcome.status !== 'error') return;
    const { error } = outcome;
    if (error instanceof ReauthenticationEnded) {
      // Cancelled: nothing added, nothing to say. A 409: the account has a 2-step method by now: step-up applies.
      dispatch({ type: 'ADD_STOPPED' });
      if (error.reason === 'STEP_UP_REQUIRED') onStepUpRequired({ type: 'ADD' });
    } else if (stepUpOnce(error, { type: 'ADD' })) dispatch({ type: 'ADD_STOPPED' });
    else dispatch({ type: 'ADD_FAILED', notice: addFailureNotice(error) });
  }, [runAdd, toast, onStepUpRequired, stepUpOnce]);

  const remove = useCallback(
    async (id: string) => {
      const outcome = await runRemove(id);
      if (outcome.status === 'success') {
        afterStepUp.current = false;
        dispatch({ type: 'REMOVED', list: outcome.data });
        toast(TEXTS.removed);
      } else if (outcome.status === 'error') {
        if (stepUpOnce(outcome.error, { type: 'REMOVE', id })) dispatch({ type: 'REMOVE_STOPPED' });
        else dispatch({ type: 'REMOVE_FAILED', notice: callFailureNotice(outcome.error) });
      }
    },
    [runRemove, toast, stepUpOnce],
  );

  const saveName = useCallback(
    async (name: string) => {
      const { target, view } = stateRef.current;
      if (view !== 'NAMING' || target === undefined) return;
      dispatch({ type: 'SAVE_NAME' });
      const outcome = await runRename(target, cleanName(name));
      if (outcome.status === 'success') dispatch({ type: 'NAME_SAVED', passkey: outcome.data });
      else if (outcome.status === 'error') {
        const { failure } = outcome;
        // A name the server refused: under the field, to type another.
        if (failure.kind === 'refused' && failure.status === 400)
          dispatch({ type: 'NAME_REFUSED', error: failure.message });
        else dispatch({ type: 'NAME_FAILED', notice: callFailureNotice(outcome.error) });
      }
    },
    [runRename],
  );

  // Back from the step-up screens: once the list is read, the add or the removal again, with no second question.
  const ready = state.view === 'READY';
  // Each resume once, even before the page has forgotten it.
  const resumed = useRef<PasskeyResume | null>(null);
  useEffect(() => {
    if (!resume || !ready || resumed.current === resume) return;
    resumed.current = resume;
    onResumeStarted();
    if (resume.type === 'ADD') {
      const action = { type: 'ADD' } as const;
      if (passkeysReducer(stateRef.current, action).view !== 'ADDING') return;
      afterStepUp.current = true;
      dispatch(action);
      void add();
    } else {
      // Not if the passkey has gone meanwhile.
      const action = { type: 'REMOVE_AFTER_STEP_UP', id: resume.id } as const;
      if (passkeysReducer(stateRef.current, action).view !== 'REMOVING') return;
      afterStepUp.current = true;
      dispatch(action);
      void remove(resume.id);
    }
  }, [resume, ready, onResumeStarted, add, remove]);

  return {
    state,
    reload: load,
    add: () => {
      const action = { type: 'ADD' } as const;
      if (passkeysReducer(stateRef.current, action).view !== 'ADDING') return;
      dispatch(action);
      void add();
    },
    rename: (id: string) => dispatch({ type: 'RENAME', id }),
    saveName: (name: string) => void saveName(name),
    closeName: () => dispatch({ type: 'CLOSE_NAME' }),
    remove: (id: string) => dispatch({ type: 'REMOVE', id }),
    cancelRemove: () => dispatch({ type: 'CANCEL_REMOVE' }),
    confirmRemove: () => {
      const { view, target } = stateRef.current;
      if (view !== 'CONFIRM_REMOVE' || target === undefined) return;
      dispatch({ type: 'CONFIRM_REMOVE' });
      void remove(target);
    },
    reauthentication,
  };
}
