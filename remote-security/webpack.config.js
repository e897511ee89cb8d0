import { createWebpackConfig } from '../webpack.base.js';

export default createWebpackConfig({
  appDir: import.meta.dirname,
  name: 'remote-security',
  role: 'remote',
  exposes: {
    // Must match REMOTE_PAGES in shared-auth's contract.
    './SecurityPage': './src/exposes/SecurityPage.tsx',
    // The framework-agnostic entry for pages outside the portal: mount(element, options) → unmount.
    './mount': './src/exposes/mount.tsx',
  },
  devPort: 3003,
  title: 'Security (remote-security)',
});
