import { useCallback } from 'react';
// The package's own entry, not 'antd': at run time that is the shell's shared copy, whose App context holds the
// notifications (a second antd in a remote's bundle would have none).
import { App } from 'shared-ui';

/** How long a toast stays (spec section 9: 30000 ms). */
export const TOAST_SECONDS = 30;

/**
 * The portal's one toast: top right, 30 seconds ('Your changes are saved.', a factor turned on…). Its own subpath
 * ('shared-ui/toast'), outside the Module Federation share: each remote bundles these few bytes, and it reads the
 * shell's antd App context.
 */
export function useToast(): (title: string) => void {
  const { notification } = App.useApp();
  return useCallback(
    (title: string) => notification.success({ title, placement: 'topRight', duration: TOAST_SECONDS }),
    [notification],
  );
}
