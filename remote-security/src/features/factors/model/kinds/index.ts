/** The factor kinds the page offers, by the contract's name and in the page's order: the one place a kind is registered. */
import { authenticatorApp } from './authenticator-app.js';
import type { FactorKind, FactorKindDescriptor } from './descriptor.js';
import { email } from './email.js';

export type * from './descriptor.js';

// Keyed by every FactorName: a name added to the contract does not compile until its kind is registered here.
// In the page's order (spec section 2: email, then the authenticator app).
const FACTOR_KINDS = {
  email,
  googleAuth: authenticatorApp,
} as const satisfies { readonly [N in FactorKind]: FactorKindDescriptor<N> };

type Registered = typeof FACTOR_KINDS;

/** What the kind's factors-data entry keeps besides its status and date (email: `{ maskedEmail }`). */
export type EntryDetail<N extends FactorKind> = ReturnType<Registered[N]['entryDetail']>;

/** The kinds whose set-up sends a code first (the only ones a CODE_SENT applies to). */
export type CodeSentFirstKind = {
  [N in FactorKind]: Registered[N]['enrolmentStart'] extends 'codeSentFirst' ? N : never;
}[FactorKind];

export function factorKind<N extends FactorKind>(name: N): Registered[N] {
  return FACTOR_KINDS[name];
}

/** Every registered kind, in the page's order. */
export const FACTOR_KIND_LIST: readonly FactorKindDescriptor[] = Object.values(FACTOR_KINDS);

/** Every registered kind's name, in the page's order. */
export const FACTOR_KIND_NAMES: readonly FactorKind[] = FACTOR_KIND_LIST.map((kind) => kind.name);

/** A record with one value per kind, built from the registry (the page's per-kind state, guards, calls). */
export function perKind<T>(value: (kind: FactorKind) => T): Record<FactorKind, T> {
  return Object.fromEntries(FACTOR_KIND_NAMES.map((name) => [name, value(name)])) as Record<FactorKind, T>;
}
