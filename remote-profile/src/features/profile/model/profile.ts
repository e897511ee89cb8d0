import type { PortalUser, ProfileUpdate } from 'shared-auth';

/** What the My Profile page shows and edits. */
export interface ProfileFields {
  firstName: string;
  lastName: string;
  email: string;
  country: string;
}

export function profileFromUser(user: PortalUser): ProfileFields {
  return { firstName: user.givenName, lastName: user.familyName, email: user.email, country: user.country };
}

const EDITABLE = ['firstName', 'lastName', 'country'] as const;

/**
 * The update to send (spec section 5): a field goes only if it is non-empty and differs from the current value.
 * Email is never sent; it cannot be edited.
 */
export function changedFields(current: ProfileFields, edited: Partial<ProfileFields>): ProfileUpdate {
  const changes: ProfileUpdate = {};
  for (const field of EDITABLE) {
    const value = edited[field]?.trim();
    if (value && value !== current[field]) changes[field] = value;
  }
  return changes;
}
