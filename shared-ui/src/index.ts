// The antd components the portal uses, re-exported once. This package is a Module Federation singleton, so
// antd is bundled once, tree-shaken to this list, and every remote gets the shell's copy and theme.
// A team that needs another component adds it here (see README: "Adding a UI component"). Form controls are in
// './forms.ts' ('shared-ui/forms'), which loads only when a form is first shown; Dropdown is in './menus.ts'
// ('shared-ui/menus'), which the shell loads after the first page.
export { Alert, App, Button, Descriptions, Flex, Layout, Space, Tag } from 'antd';
export { Modal, Typography } from './leftOutFeatures.js';
export type { DescriptionsProps, MenuProps, QRCodeProps } from 'antd';
export {
  CheckCircleFilled,
  CloseCircleOutlined,
  DownOutlined,
  IdcardOutlined,
  LockOutlined,
  LogoutOutlined,
  SafetyOutlined,
  UserOutlined,
} from '@ant-design/icons';
export { PortalThemeProvider, portalTheme } from './theme.js';
export { QRCode } from './QRCode.js';
export { Spin, type SpinProps } from './Spin.js';
export { Result, type ResultProps } from './Result.js';
export { WaitDialog, type WaitDialogProps } from './WaitDialog.js';
