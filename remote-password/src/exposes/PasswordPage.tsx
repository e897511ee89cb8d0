// The module the shell loads (REMOTE_PAGES.remote_password in shared-auth's contract), and what `./mount` renders.
import { Typography } from 'shared-ui';
import { PasswordPage as Page } from '../features/password/components/PasswordPage.js';

/** BUILD_ID at build time, else the package version (webpack.base.js); 'dev' where nothing defines it (jest). */
const BUILD = typeof __BUILD_ID__ === 'string' ? __BUILD_ID__ : 'dev';

/** The page, and which build of this remote it is, so a switch or a rollback can be seen on the page itself. */
export default function PasswordPage() {
  return (
    <>
      <Page />
      {/* Muted but readable: #595959 on white is 7:1 (antd's "secondary" grey is below 4.5:1 at this size). */}
      <Typography.Paragraph style={{ marginTop: 48, fontSize: 12, color: '#595959' }}>
        Password · build {BUILD}
      </Typography.Paragraph>
    </>
  );
}
