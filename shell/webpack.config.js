import { createWebpackConfig } from '../webpack.base.js';

export default createWebpackConfig({
  appDir: import.meta.dirname,
  name: 'shell',
  role: 'host',
  devPort: 3000,
  title: 'My Profile',
});
