// The module the shell loads (REMOTE_PAGES.remote_password in shared-auth's contract), and what `./mount` renders.
import { PasswordPage as Page } from '../features/password/components/PasswordPage.js';

/** BUILD_ID at build time, else the package version (webpack.base.js); 'dev' where nothing defines it (jest). */
const BUILD = typeof __BUILD_ID__ === 'string' ? __BUILD_ID__ : 'dev';

/** The page; its root says which build of this remote it is (data-build), for the team, out of the holder's view. */
export default function PasswordPage() {
  return (
    <div data-build={BUILD}>
      <Page />
    </div>
  );
}
