import { createWebpackConfig } from '../webpack.base.js';

export default createWebpackConfig({
  appDir: import.meta.dirname,
  name: 'remote-profile',
  role: 'remote',
  exposes: {
    // Must match REMOTE_PAGES in shared-auth's contract; the contract test fails CI when they drift.
    './ProfilePage': './src/exposes/ProfilePage.tsx',
    // The framework-agnostic entry for pages outside the portal: mount(element, options) → unmount.
    './mount': './src/exposes/mount.tsx',
  },
  devPort: 3001,
  title: 'My Profile (remote-profile)',
});
