/** The factors data and the rules read from it: counts, the disabled switch, 'remove', the dates. */
import { FACTOR_KIND_NAMES, factorKind, type EntryDetail, type FactorKind } from './kinds/index.js';

/** Factors data (spec section 3): ACTIVE counts as enabled. Some kinds have an entry only once enrolled. */
export interface FactorEntry {
  status: 'ACTIVE' | 'INACTIVE';
  enrolledDate: string | null;
}
/** Each kind's entry: the status and date, and what the kind keeps besides (email: the masked address). */
export type FactorsData = { [N in FactorKind]?: FactorEntry & EntryDetail<N> };

/** How many factors are active, recomputed from the entries of every registered kind. */
export function countActive(data: FactorsData): number {
  return FACTOR_KIND_NAMES.filter((name) => data[name]?.status === 'ACTIVE').length;
}

export interface SwitchFacts {
  /** Details still loading, or a toggle or removal under way. */
  loading: boolean;
  /** The factor is on (status ACTIVE). */
  on: boolean;
  /** The count the page tracks: +1 on opt-in and activation, −1 on opt-out and removal. */
  factorsCount: number;
  /** The count recomputed from the data. */
  activeCount: number;
}

/**
 * Spec section 4: the switch is disabled while loading, and when the factor is on and fewer than 2 factors
 * are active. For the email factor that applies when either the tracked count or the recomputed count is
 * below 2 (the kind's `lastFactorCounts`).
 */
export function isSwitchDisabled(factor: FactorKind, facts: SwitchFacts): boolean {
  if (facts.loading) return true;
  if (!facts.on) return false;
  switch (factorKind(factor).lastFactorCounts) {
    case 'tracked':
      return facts.factorsCount < 2;
    case 'trackedOrRecomputed':
      return facts.factorsCount < 2 || facts.activeCount < 2;
  }
}

/** The 'remove' link shows only when 2 or more factors are active. */
export function canRemove(activeCount: number): boolean {
  return activeCount >= 2;
}

const SHORT_DATE = new Intl.DateTimeFormat('en-US', { month: 'short', day: 'numeric', year: 'numeric' });

/** 'Added {date}' in en-US short form: month, day, year (e.g. Mar 7, 2026). */
export function addedLabel(enrolledDate: string | null | undefined): string | undefined {
  if (!enrolledDate) return undefined;
  const date = new Date(enrolledDate);
  return Number.isNaN(date.getTime()) ? undefined : `Added ${SHORT_DATE.format(date)}`;
}
