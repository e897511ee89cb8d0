/**
 * The Security page's section of each kind of factor, in the page's order (spec section 2: email, then the
 * authenticator app): the only place the page lists the kinds. A new kind adds its section component here.
 */
import type { ComponentType } from 'react';
import type { FactorKind } from '../model/enrolment.js';
import { AuthenticatorSection } from './AuthenticatorSection.js';
import { EmailSection } from './EmailSection.js';
import type { KindSectionProps } from './FactorSection.js';

export const FACTOR_SECTIONS = {
  email: EmailSection,
  googleAuth: AuthenticatorSection,
} as const satisfies Record<FactorKind, ComponentType<KindSectionProps>>;

/** The sections as [kind, component] pairs, in the page's order. */
export const FACTOR_SECTION_LIST = Object.entries(FACTOR_SECTIONS) as [
  FactorKind,
  ComponentType<KindSectionProps>,
][];
