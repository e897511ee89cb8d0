// The user menu's About dialog (issue 23): the builds this page runs, kept out of the holder's pages.
import { Descriptions, Modal } from 'shared-ui';
import { PORTAL_PAGES } from '../../../config/pages.js';
import type { ActiveRemote } from '../model/activeRemotes.js';

/** What the shell's build is: BUILD_ID at build time, else the package version (webpack.base.js); 'dev' in jest. */
export const SHELL_BUILD = typeof __BUILD_ID__ === 'string' ? __BUILD_ID__ : 'dev';

export interface LoadedRemote {
  name: string;
  active: ActiveRemote;
}

interface AboutDialogProps {
  open: boolean;
  onClose: () => void;
  /** The remotes loaded in this page, with the release each runs. */
  remotes: readonly LoadedRemote[];
  shellBuild?: string;
}

function releaseOf({ version, buildId, isFallback }: ActiveRemote): string {
  const parts = [version ? `Version ${version}` : 'No release yet'];
  if (buildId) parts.push(`build ${buildId}`);
  if (isFallback) parts.push('previous version, the latest did not load');
  return parts.join(' · ');
}

/**
 * The builds this page runs, for the teams (the holder's pages no longer show them): the shell's, and each loaded
 * remote's version and build, so a switch, a canary or a rollback can be seen from the user menu.
 */
export function AboutDialog({ open, onClose, remotes, shellBuild = SHELL_BUILD }: AboutDialogProps) {
  const labelOf = (name: string) => PORTAL_PAGES.find((page) => page.remote === name)?.label ?? name;
  return (
    <Modal open={open} title="About" onCancel={onClose} footer={null} destroyOnHidden>
      <Descriptions
        column={1}
        size="small"
        items={[
          { key: 'shell', label: 'Portal', children: `Build ${shellBuild}` },
          ...remotes.map(({ name, active }) => ({
            key: name,
            label: labelOf(name),
            children: releaseOf(active),
          })),
        ]}
      />
    </Modal>
  );
}
