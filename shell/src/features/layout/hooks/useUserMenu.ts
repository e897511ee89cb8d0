// The user menu once its chunk is in (model/userMenuLoader.ts): fetched after the first page, or when its button
// is pressed before that (the menu then opens as soon as it is in). Not on hover or focus: a button swapped under
// a pointer that is pressing it would lose that click.
import { useCallback, useEffect, useRef, useState, type RefObject } from 'react';
import { afterFirstPage } from '../../../lib/afterFirstPage.js';
import { loadedUserMenu, loadUserMenu, type UserMenuType } from '../model/userMenuLoader.js';

interface LoadedUserMenu {
  UserMenu: UserMenuType;
  /** The placeholder button had the focus when the menu arrived: the menu's button takes it over. */
  focus: boolean;
  /** The placeholder button was pressed: the menu opens at once. */
  open: boolean;
}

export function useUserMenu(placeholder: RefObject<HTMLButtonElement | null>) {
  const [menu, setMenu] = useState<LoadedUserMenu | undefined>(() => {
    const UserMenu = loadedUserMenu();
    return UserMenu ? { UserMenu, focus: false, open: false } : undefined;
  });
  const mounted = useRef(true);
  const openRequested = useRef(false);

  const request = useCallback(() => {
    loadUserMenu().then(
      (UserMenu) => {
        if (!mounted.current) return;
        setMenu(
          (current) =>
            current ?? {
              UserMenu,
              focus: document.activeElement === placeholder.current,
              open: openRequested.current,
            },
        );
      },
      (error: unknown) => console.error('The user menu could not be loaded:', error),
    );
  }, [placeholder]);

  useEffect(() => {
    mounted.current = true;
    if (!menu) afterFirstPage(request);
    return () => {
      mounted.current = false;
    };
    // Scheduled once per mount: a later render has the menu, or a request under way.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  /** The placeholder's handler: a press loads the menu and opens it once it is in. */
  const placeholderHandlers = {
    onClick: () => {
      openRequested.current = true;
      request();
    },
  };
  return { menu, placeholderHandlers };
}
