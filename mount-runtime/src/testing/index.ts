// What the remotes' tests share: the ./mount entry's tests, a page rendered for a signed-in user, and the user.
export { describeMountEntry } from './describeMountEntry.js';
export { renderSignedIn } from './renderSignedIn.js';
export { userEvent } from './userEvent.js';
