// The module the shell loads (REMOTE_PAGES.remote_password in shared-auth's contract).
export { PasswordPage as default } from '../features/password/components/PasswordPage.js';
