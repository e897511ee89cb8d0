// The user menu's button, the same before and after the menu itself has loaded.
import type { ComponentProps, Ref } from 'react';
import { Button, DownOutlined, UserOutlined } from 'shared-ui';

interface UserMenuButtonProps extends Omit<ComponentProps<typeof Button>, 'children' | 'type' | 'ref'> {
  ref?: Ref<HTMLButtonElement>;
  userName: string;
  narrow: boolean;
}

/**
 * The user menu's button, named after the user: the same button before the menu has loaded (UserMenuPlaceholder)
 * and inside it (UserMenu), so the bar looks the same either way.
 */
export function UserMenuButton({ ref, userName, narrow, style, ...rest }: UserMenuButtonProps) {
  return (
    // A long name gives way (ellipsis) rather than push the bar wider than the screen; the button's name keeps it
    // whole.
    <Button
      {...rest}
      ref={ref}
      type="text"
      style={{ color: '#fff', minWidth: 0, ...(narrow ? { height: 44, paddingInline: 8 } : {}), ...style }}
      aria-label={`User menu for ${userName}`}
    >
      <UserOutlined />
      <span style={{ minWidth: 0, overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap' }}>
        {userName}
      </span>
      <DownOutlined />
    </Button>
  );
}
