import { useCallback, useEffect, useReducer, useRef } from 'react';
import { useToast } from 'shared-ui/toast';
import { useApiClient, useAuth } from 'shared-auth';
import { classifyFailure, useCall } from 'shared-auth/async';
import type { PasskeyRegistrationOptions } from 'shared-auth';
import { createPasskey } from 'shared-stepup';
import type { DefaultMethod } from '../../../lib/preferred-method/usePreferredMethod.js';
import { leavePageFor } from '../../../lib/navigation.js';
import { useConfirmItsYou } from '../../../lib/reauthentication/useConfirmItsYou.js';
import { ReauthenticationEnded } from '../../../lib/reauthentication/reauthentication.js';
import { byId, IDS } from '../components/ids.js';
import {
  getPasskeys,
  getRegistrationOptions,
  removePasskey,
  renamePasskey,
  verifyRegistration,
} from '../api/passkeysApi.js';
import {
  addFailureNotice,
  addMode,
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
  /** The holder's default method: "Use by default" on the passkeys, or their "Default" tag (issue 22). */
  defaultMethod?: DefaultMethod | undefined;
}

/** The key of "Confirm it's you" (lib/reauthentication) for this section: adding a passkey. */
const REAUTHENTICATION_KEY = 'passkey';
const isAddKey = (key: string): key is typeof REAUTHENTICATION_KEY => key === REAUTHENTICATION_KEY;

type RegistrationOptions = PasskeyRegistrationOptions['options'];

/**
 * The Passkeys section: reads the list; adds a passkey (the server's options, the browser's ceremony, the server's
 * check; "Confirm it's you" first when it would be the first 2-step method, as the factors do), then asks for its
 * name; renames; removes after a confirmation. A 403 step_up_required hands over to the page's step-up screens,
 * after which the add or the removal runs again by itself, once. An add that follows a verification (the step-up
 * screens, "Confirm it's you", a new sign-in) stops before the ceremony, at 'Create passkey': the ceremony needs
 * the holder's fresh click in some browsers (Safari). Where the identity provider adds passkeys itself (hosted),
 * Add leaves for its page.
 */
export function usePasskeys({ onStepUpRequired, resume, onResumeStarted, onCountChange }: PasskeysOptions) {
  const { user } = useAuth();
  const client = useApiClient();
  const toast = useToast();
  const [state, dispatch] = useReducer(passkeysReducer, initialPasskeysState);
  const confirmItsYou = useConfirmItsYou({
    feature: 'passkeys',
    isKey: isAddKey,
    ready: state.view === 'READY',
    // Back from 'Sign in again': the add again, up to 'Create passkey' (defined below).
    onResume: () => void startAdd(true),
    // With the add cancelled, back to Add; an add that goes on places the focus itself.
    focusBack: () => (state.view === 'READY' ? [byId(IDS.add), byId(IDS.title)] : null),
  });
  const { guard } = confirmItsYou;
  const stateRef = useRef<PasskeysState>(state);
  useEffect(() => {
    stateRef.current = state;
  }, [state]);
  // The server's options while 'Create your passkey' waits for its click.
  const readyOptions = useRef<RegistrationOptions | null>(null);
  // Meanwhile the WebAuthn library loads (the chunk createPasskey loads), so the click reaches the ceremony
  // without waiting on the network, inside the browser's window for a user gesture.
  const waitingForClick = state.view === 'CREATE_READY';
  useEffect(() => {
    if (waitingForClick)
      import(/* webpackChunkName: "webauthn" */ '@simplewebauthn/browser').catch(() => undefined);
  }, [waitingForClick]);

  const { run: runList, abort: stopList } = useCall(
    useCallback((signal: AbortSignal) => getPasskeys(client, user.sub, { signal }), [client, user.sub]),
  );
  // The server's options; `verified`: "Confirm it's you" came first, so the ceremony waits for a click.
  const { run: runOptions } = useCall(
    useCallback(
      async (signal: AbortSignal) => {
        let verified = false;
        const options = await guard(
          REAUTHENTICATION_KEY,
          () => getRegistrationOptions(client, user.sub, { signal }),
          () => (verified = true),
        );
        return { options, verified };
      },
      [client, user.sub, guard],
    ),
  );
  // The browser's ceremony, then the server's check of its answer.
  const { run: runCreate } = useCall(
    useCallback(
      async (signal: AbortSignal, options: RegistrationOptions) => {
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

  const addFailed = useCallback(
    (error: unknown) => {
      if (error instanceof ReauthenticationEnded) {
        // Cancelled: nothing added, nothing to say. A 409: the account has a 2-step method by now: step-up applies.
        dispatch({ type: 'ADD_STOPPED' });
        if (error.reason === 'STEP_UP_REQUIRED') onStepUpRequired({ type: 'ADD' });
      } else if (stepUpOnce(error, { type: 'ADD' })) dispatch({ type: 'ADD_STOPPED' });
      else dispatch({ type: 'ADD_FAILED', notice: addFailureNotice(error) });
    },
    [onStepUpRequired, stepUpOnce],
  );

  const create = useCallback(
    async (options: RegistrationOptions) => {
      const outcome = await runCreate(options);
      if (outcome.status === 'success') {
        afterStepUp.current = false;
        dispatch({ type: 'ADDED', passkey: outcome.data });
        toast(TEXTS.added);
      } else if (outcome.status === 'error') addFailed(outcome.error);
    },
    [runCreate, toast, addFailed],
  );

  /** The options, then the ceremony at once; or, after a verification (`verified`), 'Create passkey' first. */
  const add = useCallback(
    async (verified: boolean) => {
      const outcome = await runOptions();
      if (outcome.status === 'error') addFailed(outcome.error);
      if (outcome.status !== 'success') return;
      const { options } = outcome.data;
      if (verified || outcome.data.verified) {
        readyOptions.current = options;
        dispatch({ type: 'READY_TO_CREATE' });
      } else await create(options);
    },
    [runOptions, addFailed, create],
  );

  /** 'Add a passkey' (`verified`: again by itself after a verification); false when the list allows none now. */
  const startAdd = useCallback(
    (verified: boolean): boolean => {
      const action = { type: 'ADD' } as const;
      if (passkeysReducer(stateRef.current, action).view !== 'ADDING') return false;
      dispatch(action);
      void add(verified);
      return true;
    },
    [add],
  );

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
      afterStepUp.current = true;
      if (!startAdd(true)) afterStepUp.current = false;
    } else {
      // Not if the passkey has gone meanwhile.
      const action = { type: 'REMOVE_AFTER_STEP_UP', id: resume.id } as const;
      if (passkeysReducer(stateRef.current, action).view !== 'REMOVING') return;
      afterStepUp.current = true;
      dispatch(action);
      void remove(resume.id);
    }
  }, [resume, ready, onResumeStarted, startAdd, remove]);

  return {
    state,
    reload: load,
    add: () => {
      const { view, list } = stateRef.current;
      const mode = addMode(list);
      // Hosted: the identity provider's page adds it, then sends the holder back here (the list is read anew).
      if (mode?.type === 'hosted') {
        if (view === 'READY') leavePageFor(mode.url);
      } else startAdd(false);
    },
    /** 'Create passkey': the ceremony, on this click. */
    create: () => {
      const options = readyOptions.current;
      if (stateRef.current.view !== 'CREATE_READY' || !options) return;
      readyOptions.current = null;
      dispatch({ type: 'CREATE' });
      void create(options);
    },
    cancelCreate: () => {
      readyOptions.current = null;
      afterStepUp.current = false;
      dispatch({ type: 'CANCEL_CREATE' });
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
    confirmItsYou,
  };
}
