/**
 * What is sealed at rest with KEY_RING_ENCRYPTION_KEY: the boxes made from the key (the key ring's material, the
 * provider's records), and how a provider record's payload is sealed and opened. Here, below the stores that
 * write those rows and the start-up that seals an older server's clear rows (keys/at-rest.ts).
 */
import type { AdapterPayload } from 'oidc-provider';
import { deriveKey, isSealed, SecretBox } from '../crypto/secret-box.js';

/** The boxes made from KEY_RING_ENCRYPTION_KEY. */
export interface AtRestSealing {
  /** The key ring's material; the kid is the additional data. */
  keyRing: SecretBox;
  /** The provider's records (oidc_payloads' payloads); model and stored id are the additional data. */
  providerRecords: SecretBox;
  /** The outbox's secret messages (a password reset link) until sent; user and subject are the additional data. */
  outbox: SecretBox;
}

/** The boxes of one key: the ring's uses the key itself, the records' a key derived from it. */
export function sealingOf(key: Buffer): AtRestSealing {
  return {
    keyRing: new SecretBox(key),
    providerRecords: new SecretBox(deriveKey(key, 'portal provider records v1')),
    outbox: new SecretBox(deriveKey(key, 'portal outbox v1')),
  };
}

/**
 * The additional data a row's payload is sealed with: its model and stored id, so a payload moved onto another
 * row does not open.
 */
export const payloadContext = (model: string, storedId: string) => `${model}:${storedId}`;

/** The payload as stored: sealed with the provider records' key (KEY_RING_ENCRYPTION_KEY, derived). */
export function sealPayload(box: SecretBox, model: string, storedId: string, payload: object): string {
  return box.seal(JSON.stringify(payload), payloadContext(model, storedId));
}

/** A stored payload read back; a clear one (written before the seal, start-up seals it) is still read. */
export function openPayload<T = AdapterPayload>(
  box: SecretBox,
  model: string,
  storedId: string,
  stored: string,
): T {
  const text = isSealed(stored) ? box.open(stored, payloadContext(model, storedId)) : stored;
  return JSON.parse(text) as T;
}

/** Interactions name their account only inside the payload: the `account_id` column carries it for revocation. */
export function interactionAccountOf(payload: object): string | null {
  const { result } = payload as {
    result?: { portal?: { accountId?: unknown }; login?: { accountId?: unknown } };
  };
  const accountId = result?.portal?.accountId ?? result?.login?.accountId;
  return typeof accountId === 'string' ? accountId : null;
}
