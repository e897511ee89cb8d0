/**
 * The Security page's section component of each kind of factor. The kinds and their order come from the registry
 * (model/kinds/); a new kind adds its section component here, and does not compile until it has.
 */
import type { ComponentType } from 'react';
import { FACTOR_KIND_NAMES, type FactorKind } from '../model/kinds/index.js';
import { AuthenticatorSection } from './AuthenticatorSection.js';
import { EmailSection } from './EmailSection.js';
import type { KindSectionProps } from './FactorSection.js';

export const FACTOR_SECTIONS = {
  email: EmailSection,
  googleAuth: AuthenticatorSection,
} as const satisfies Record<FactorKind, ComponentType<KindSectionProps>>;

/** The sections as [kind, component] pairs, in the registry's (the page's) order. */
export const FACTOR_SECTION_LIST: readonly (readonly [FactorKind, ComponentType<KindSectionProps>])[] =
  FACTOR_KIND_NAMES.map((kind) => [kind, FACTOR_SECTIONS[kind]] as const);
