import { PASSWORD_RULE_IDS, PASSWORD_RULE_MESSAGES, type PasswordRuleId } from 'shared-auth';

export type RuleResults = Readonly<Record<PasswordRuleId, boolean>>;

/** The results as a short key ('101100'), stable across renders, to compare and to re-read. */
export function resultsKey(results: RuleResults): string {
  return PASSWORD_RULE_IDS.map((id) => (results[id] ? '1' : '0')).join('');
}

export function resultsFromKey(key: string): RuleResults {
  return Object.fromEntries(PASSWORD_RULE_IDS.map((id, index) => [id, key[index] === '1'])) as RuleResults;
}

/**
 * What the polite live region says after the user paused typing: the rules whose state changed since the last
 * announcement, then how many are met. Empty when nothing changed (nothing is announced).
 */
export function describeRuleChanges(previous: RuleResults, current: RuleResults): string {
  const changed = PASSWORD_RULE_IDS.filter((id) => previous[id] !== current[id]);
  if (changed.length === 0) return '';
  const met = PASSWORD_RULE_IDS.filter((id) => current[id]).length;
  const changes = changed.map((id) => `${PASSWORD_RULE_MESSAGES[id]}: ${current[id] ? 'met' : 'not met'}.`);
  return [...changes, `${met} of ${PASSWORD_RULE_IDS.length} password rules met.`].join(' ');
}
