import type { ProfileUpdate } from 'shared-auth';
import type { ProfileFields } from './profile.js';

/** The profile moves between viewing and editing; saving sits between editing and viewing (spec section 4). */
export type ProfileStatus = 'viewing' | 'editing' | 'saving';

export interface ProfileState {
  status: ProfileStatus;
  /** Values saved in this visit, shown over the (possibly older) ID-token claims. */
  saved: Partial<ProfileFields>;
  /** The server's reason when the last save was refused. */
  error?: string;
}

export type ProfileAction =
  | { type: 'EDIT' }
  | { type: 'CANCEL' }
  | { type: 'SAVE'; changes: ProfileUpdate }
  | { type: 'SAVE_SUCCEEDED'; stored: Partial<ProfileFields> }
  | { type: 'SAVE_FAILED'; error: string };

export const initialProfileState: ProfileState = { status: 'viewing', saved: {} };

export function profileReducer(state: ProfileState, action: ProfileAction): ProfileState {
  switch (state.status) {
    case 'viewing':
      return action.type === 'EDIT' ? { status: 'editing', saved: state.saved } : state;
    case 'editing':
      if (action.type === 'CANCEL') return { status: 'viewing', saved: state.saved };
      if (action.type === 'SAVE') {
        // Nothing changed means nothing is sent: straight back to the read-only view.
        return Object.keys(action.changes).length === 0
          ? { status: 'viewing', saved: state.saved }
          : { status: 'saving', saved: state.saved };
      }
      return state;
    case 'saving':
      if (action.type === 'SAVE_SUCCEEDED') {
        return { status: 'viewing', saved: { ...state.saved, ...action.stored } };
      }
      if (action.type === 'SAVE_FAILED')
        return { status: 'editing', saved: state.saved, error: action.error };
      return state;
  }
}
