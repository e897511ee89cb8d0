// TEMPORARY: shared-auth's remotes.contract.test.ts still imports the pages from here; delete this file once it
// imports '../../../shell/src/config/pages.js' (issue 10 integration).
export { PORTAL_PAGES } from '../../config/pages.js';
