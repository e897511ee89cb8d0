/**
 * oidc-provider's Adapter over the provider store (storage/provider.ts): each model's calls go to the store with
 * the model's name. What is kept and how (hashed ids, sealed payloads, one live refresh token per chain) is the
 * store's.
 */
import type { Adapter, AdapterFactory } from 'oidc-provider';
import type { ProviderStore } from '../storage/provider.js';

/** The factory oidc-provider's `adapter` setting takes. */
export function providerAdapter(store: ProviderStore): AdapterFactory {
  return (model: string): Adapter => ({
    upsert: (id, payload, expiresIn) => store.upsert(model, id, payload, expiresIn),
    find: (id) => store.find(model, id),
    findByUid: (uid) => store.findByUid(model, uid),
    findByUserCode: (userCode) => store.findByUserCode(model, userCode),
    consume: (id) => store.consume(model, id),
    destroy: (id) => store.destroy(model, id),
    revokeByGrantId: (grantId) => store.revokeByGrantId(grantId),
  });
}
