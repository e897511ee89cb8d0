/** The factor kinds the portal offers, by the contract's name: the only place a kind is registered. */
import type { FactorName } from 'shared-auth/contract';
import { authenticatorApp } from './authenticator-app.js';
import { email } from './email.js';
import type { FactorKind } from './kind.js';

// Keyed by every FactorName: a name added to the contract does not compile until its kind is registered here.
const FACTOR_KINDS: { readonly [N in FactorName]: FactorKind<N> } = {
  googleAuth: authenticatorApp,
  email,
};

export function kindOf(name: FactorName): FactorKind {
  return FACTOR_KINDS[name];
}

/** Every registered kind. */
export const FACTOR_KIND_LIST: readonly FactorKind[] = Object.values(FACTOR_KINDS);
