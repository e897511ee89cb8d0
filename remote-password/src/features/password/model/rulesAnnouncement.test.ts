import { passwordRuleResults } from 'shared-auth';
import { describeRuleChanges, resultsFromKey, resultsKey } from './rulesAnnouncement.js';

const check = (password: string) =>
  passwordRuleResults({ password, email: 'alice@example.com', currentPassword: 'Wonderland-42' });

describe('describeRuleChanges', () => {
  it('announces only the rules that changed, then the count', () => {
    expect(describeRuleChanges(check(''), check('tumbling'))).toBe(
      'At least 8 characters: met. At least 1 lowercase letter: met. Does not contains part of email: met. ' +
        'Must not match current password field: met. 4 of 6 password rules met.',
    );
    expect(describeRuleChanges(check('tumbling'), check('tumbling7'))).toBe(
      'At least 1 number: met. 5 of 6 password rules met.',
    );
  });

  it('announces rules that stop being met', () => {
    expect(describeRuleChanges(check('Tumbling7'), check('Tumbling7alice'))).toBe(
      'Does not contains part of email: not met. 5 of 6 password rules met.',
    );
  });

  it('says nothing when nothing changed', () => {
    expect(describeRuleChanges(check('tumbling'), check('rumbling'))).toBe('');
  });
});

describe('resultsKey', () => {
  it('round-trips', () => {
    const results = check('Tumbling');
    expect(resultsKey(results)).toBe('101111');
    expect(resultsFromKey(resultsKey(results))).toEqual(results);
  });
});
