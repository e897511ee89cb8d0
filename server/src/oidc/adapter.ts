/**
 * oidc-provider's Adapter over the provider store (storage/provider.ts): each model's calls go to the store with
 * the model's name. What is kept and how (hashed ids, sealed payloads, one live refresh token per chain) is the
 * store's.
 *
 * Writes that must commit with one of the provider's own (the account's activity, activity/: a finished sign-in
 * is the interaction's result saved, a sign-out is the session deleted) cannot be handed to oidc-provider, which
 * calls the adapter itself; the request that causes them names them with `withWritesAlongside`, and the adapter's
 * save or delete runs them in its own transaction.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Adapter, AdapterFactory } from 'oidc-provider';
import type { Sql } from '../db/sql.js';
import type { ProviderStore } from '../storage/provider.js';

/** Writes to make in the transaction of one of the provider's own writes, in this request. */
export interface WritesAlongside {
  /** With the save of an interaction's result (a sign-in finished); made once. */
  interactionResult?: ((tx: Sql) => Promise<void>) | undefined;
  /** With the deletion of each session of an account (a sign-out), given the account. */
  sessionEnded?: ((tx: Sql, accountId: string) => Promise<void>) | undefined;
  /**
   * With each save of a session that is signed in to an account (the sign-in's resume saves it with its account),
   * given the account and the session's uid: the Devices row (devices/).
   */
  sessionSaved?: ((tx: Sql, accountId: string, sessionUid: string) => Promise<void>) | undefined;
}

const alongside = new AsyncLocalStorage<WritesAlongside>();

/** Runs `work` (which makes the provider save or delete) with `writes` joining the provider's transaction. */
export function withWritesAlongside<T>(writes: WritesAlongside, work: () => T): T {
  return alongside.run({ ...writes }, work);
}

/** The pending result write of this request, taken (a result is saved once). */
function takeInteractionResult(payload: { result?: unknown }): ((tx: Sql) => Promise<void>) | undefined {
  const writes = alongside.getStore();
  const write = writes?.interactionResult;
  if (!writes || !write || payload.result === undefined) return undefined;
  writes.interactionResult = undefined;
  return write;
}

/** The pending session write of this request, for a session signed in to an account. */
function sessionSavedWrite(payload: { accountId?: unknown; uid?: unknown }) {
  const write = alongside.getStore()?.sessionSaved;
  const { accountId, uid } = payload;
  if (!write || typeof accountId !== 'string' || typeof uid !== 'string') return undefined;
  return (tx: Sql) => write(tx, accountId, uid);
}

/** The factory oidc-provider's `adapter` setting takes. */
export function providerAdapter(store: ProviderStore): AdapterFactory {
  return (model: string): Adapter => ({
    upsert: (id, payload, expiresIn) =>
      store.upsert(
        model,
        id,
        payload,
        expiresIn,
        model === 'Interaction'
          ? takeInteractionResult(payload)
          : model === 'Session'
            ? sessionSavedWrite(payload)
            : undefined,
      ),
    find: (id) => store.find(model, id),
    findByUid: (uid) => store.findByUid(model, uid),
    findByUserCode: (userCode) => store.findByUserCode(model, userCode),
    consume: (id) => store.consume(model, id),
    destroy: (id) =>
      store.destroy(model, id, model === 'Session' ? alongside.getStore()?.sessionEnded : undefined),
    revokeByGrantId: (grantId) => store.revokeByGrantId(grantId),
  });
}
