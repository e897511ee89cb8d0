import { initialProfileState, profileReducer, type ProfileState } from './profileReducer.js';

const editing: ProfileState = { status: 'editing', saved: {} };
const saving: ProfileState = { status: 'saving', saved: { firstName: 'Alicia' } };

describe('profileReducer', () => {
  it('starts in the read-only view', () => {
    expect(initialProfileState.status).toBe('viewing');
  });

  it('viewing → editing on EDIT', () => {
    expect(profileReducer(initialProfileState, { type: 'EDIT' })).toEqual(editing);
  });

  it('editing → viewing on CANCEL, keeping what was saved before', () => {
    const state: ProfileState = { status: 'editing', saved: { country: 'FR' } };
    expect(profileReducer(state, { type: 'CANCEL' })).toEqual({
      status: 'viewing',
      saved: { country: 'FR' },
    });
  });

  it('editing → saving on SAVE with changes', () => {
    expect(profileReducer(editing, { type: 'SAVE', changes: { lastName: 'Pleasance' } }).status).toBe(
      'saving',
    );
  });

  it('editing → viewing on SAVE with no changes (nothing is sent)', () => {
    expect(profileReducer(editing, { type: 'SAVE', changes: {} })).toEqual({ status: 'viewing', saved: {} });
  });

  it('saving → viewing on success, merging the stored values', () => {
    expect(profileReducer(saving, { type: 'SAVE_SUCCEEDED', stored: { lastName: 'Pleasance' } })).toEqual({
      status: 'viewing',
      saved: { firstName: 'Alicia', lastName: 'Pleasance' },
    });
  });

  it('saving → editing on failure, applying nothing and keeping the reason', () => {
    expect(
      profileReducer(saving, { type: 'SAVE_FAILED', error: 'Country must be one of the listed countries' }),
    ).toEqual({
      status: 'editing',
      saved: { firstName: 'Alicia' },
      error: 'Country must be one of the listed countries',
    });
  });

  it('clears an earlier failure when editing starts again', () => {
    const failed: ProfileState = { status: 'viewing', saved: {}, error: 'Refused' };
    expect(profileReducer(failed, { type: 'EDIT' }).error).toBeUndefined();
  });

  it('ignores actions that do not apply to the current state', () => {
    expect(profileReducer(initialProfileState, { type: 'SAVE', changes: { lastName: 'X' } })).toBe(
      initialProfileState,
    );
    expect(profileReducer(saving, { type: 'EDIT' })).toBe(saving);
    expect(profileReducer(editing, { type: 'SAVE_SUCCEEDED', stored: {} })).toBe(editing);
  });
});
