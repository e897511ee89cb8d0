// Loads the user menu's chunk (UserMenu and 'shared-ui/menus') once, for every TopBar; a failed load is tried
// again on the next request.
import type { UserMenu as UserMenuComponent } from '../components/UserMenu.js';

export type UserMenuType = typeof UserMenuComponent;

let loaded: UserMenuType | undefined;
let loading: Promise<UserMenuType> | undefined;

export function loadUserMenu(): Promise<UserMenuType> {
  loading ??= import('../components/UserMenu.js').then(
    (module) => (loaded = module.UserMenu),
    (error: unknown) => {
      loading = undefined;
      throw error;
    },
  );
  return loading;
}

/** The user menu, if its chunk has already loaded. */
export function loadedUserMenu(): UserMenuType | undefined {
  return loaded;
}
