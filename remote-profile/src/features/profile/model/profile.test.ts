import { changedFields, type ProfileFields } from './profile.js';

const current: ProfileFields = {
  firstName: 'Alice',
  lastName: 'Liddell',
  email: 'alice@example.com',
  country: 'GB',
};

describe('changedFields', () => {
  it('sends nothing when nothing changed', () => {
    expect(changedFields(current, { ...current })).toEqual({});
  });

  it('sends only the fields that differ', () => {
    expect(changedFields(current, { ...current, lastName: 'Pleasance', country: 'FR' })).toEqual({
      lastName: 'Pleasance',
      country: 'FR',
    });
  });

  it('ignores emptied fields instead of sending blanks', () => {
    expect(changedFields(current, { ...current, firstName: '   ', lastName: '' })).toEqual({});
  });

  it('compares trimmed values and sends them trimmed', () => {
    expect(changedFields(current, { firstName: ' Alice ', lastName: ' Hargreaves ' })).toEqual({
      lastName: 'Hargreaves',
    });
  });

  it('never sends the email, even when it differs', () => {
    expect(changedFields(current, { email: 'mallory@example.com' })).toEqual({});
  });
});
