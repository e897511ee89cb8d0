// The module the shell loads (REMOTE_PAGES.remote_profile in shared-auth's contract).
export { ProfilePage as default } from '../features/profile/components/ProfilePage.js';
