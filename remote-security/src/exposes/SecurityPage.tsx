// The module the shell loads (REMOTE_PAGES.remote_security in shared-auth's contract).
export { SecurityPage as default } from '../features/security/components/SecurityPage.js';
