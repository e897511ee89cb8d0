import { createWebpackConfig } from '../webpack.base.js';

export default createWebpackConfig({
  appDir: import.meta.dirname,
  name: 'remote-activity',
  role: 'remote',
  exposes: {
    // Must match REMOTE_PAGES in shared-auth's contract.
    './ActivityPage': './src/exposes/ActivityPage.tsx',
    // The framework-agnostic entry for pages outside the portal: mount(element, options) → unmount.
    './mount': './src/exposes/mount.tsx',
  },
  devPort: 3004,
  title: 'Devices & activity (remote-activity)',
});
