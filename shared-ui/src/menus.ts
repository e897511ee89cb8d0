// antd's Dropdown (and, inside it, antd's Menu), shared as their own singleton ('shared-ui/menus'). Only the
// shell's user menu uses them, and it shows a plain button until they are needed: with them in 'shared-ui', every
// first page carried the menu engine and its styles (about 18 kB gzip) for a menu nobody had opened yet.
// They live in the same build as 'shared-ui', so they read the same theme (ConfigProvider context).
export { Dropdown } from 'antd';
export type { DropdownProps, MenuProps } from 'antd';
