import { useMemo, type ComponentType } from 'react';
import { createBridgeComponent } from '@module-federation/bridge-react/v19';
import {
  AuthProvider,
  createSharedRenewal,
  useSignedInSession,
  type RemoteMount,
  type RemoteMountOptions,
  type RemoteUnmount,
} from 'shared-auth';
import { PortalThemeProvider, Spin } from 'shared-ui';
import { checkMountElement, checkMountOptions } from './options.js';

/** What bridge-react hands the root component: the mount options, plus its own `basename` (and others). */
export type MountedPageProps = RemoteMountOptions & { basename?: string; [prop: string]: unknown };

/** The page with what the shell would give it: the theme, antd's App context, and the session every page reads. */
function MountedPage({
  Page,
  label,
  props,
}: {
  Page: ComponentType;
  label: string;
  props: MountedPageProps;
}) {
  // A React host (bridge-react's createRemoteAppComponent) passes its own props too: check only ours.
  const options = useMemo(() => checkMountOptions(props, { strict: false }), [props]);
  const { apiBaseUrl } = options;
  const claims = useMemo(() => ({ ...options.user }), [options.user]);
  // The integrator's renewal, once for concurrent refusals and bounded in time (its signal says when to stop).
  const integratorRenewal = options.renewSession;
  const renewSession = useMemo(
    () => integratorRenewal && createSharedRenewal((signal) => integratorRenewal({ signal })),
    [integratorRenewal],
  );
  const session = useSignedInSession({
    claims,
    getAccessToken: options.getAccessToken,
    apiBaseUrl,
    flagBaseUrl: options.flagBaseUrl ?? `${apiBaseUrl}/flags/4x3`,
    ...(options.refreshUser ? { refreshUser: options.refreshUser } : {}),
    ...(options.onSessionEnded ? { onSessionEnded: options.onSessionEnded } : {}),
    ...(renewSession ? { renewSession } : {}),
    ...(options.signInAgain ? { signInAgain: options.signInAgain } : {}),
    ...(options.isFederated !== undefined ? { isFederated: options.isFederated } : {}),
  });

  return (
    <PortalThemeProvider>
      {session ? (
        <AuthProvider value={session}>
          <Page />
        </AuthProvider>
      ) : (
        // Inline, not the shell's full-page dialog: the integrator's page stays usable around it.
        <div style={{ display: 'grid', placeItems: 'center', minHeight: 240 }}>
          <Spin aria-label={`Loading ${label}`} />
        </div>
      )}
    </PortalThemeProvider>
  );
}

export interface RemoteMountEntry {
  /** `mount(element, options)` → unmount: the framework-agnostic entry. */
  mount: RemoteMount<HTMLElement>;
  /** The same page as a bridge-react provider, for React hosts using `createRemoteAppComponent`. */
  provider: ReturnType<typeof createBridgeComponent<MountedPageProps>>;
}

/**
 * The `./mount` entry of a remote. bridge-react does the React part (its own root per element, an error
 * boundary, `basename` passed through); this adds checked options, the theme and the signed-in session.
 */
export function createRemoteMount(
  Page: ComponentType,
  {
    name,
    label,
  }: { /** Container name, e.g. remote_profile. */ name: string; /** e.g. My Profile. */ label: string },
): RemoteMountEntry {
  function RootComponent(props: MountedPageProps) {
    return <MountedPage Page={Page} label={label} props={props} />;
  }
  RootComponent.displayName = `Mounted(${name})`;
  const provider = createBridgeComponent<MountedPageProps>({ rootComponent: RootComponent });
  const mounted = new WeakSet<HTMLElement>();

  function mount(element: HTMLElement, options: RemoteMountOptions): RemoteUnmount {
    const target = checkMountElement(element);
    const checked = checkMountOptions(options);
    if (mounted.has(target)) {
      throw new Error(
        `mount(): ${name} is already mounted in this element; call the unmount function mount() returned first.`,
      );
    }
    mounted.add(target);
    const bridge = provider();
    // bridge-react renders synchronously here (its render is async only for custom render functions).
    bridge
      .render({ dom: target, moduleName: name, basename: checked.basePath ?? '/', ...checked })
      .catch((error: unknown) => console.error(`${name}: mount() could not render:`, error));
    let unmounted = false;
    return () => {
      if (unmounted) return;
      unmounted = true;
      mounted.delete(target);
      bridge.destroy({ dom: target, moduleName: name });
    };
  }

  return { mount, provider };
}
