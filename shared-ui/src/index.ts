// The antd components the portal uses, re-exported once. This package is a Module Federation singleton, so
// antd is bundled once, tree-shaken to this list, and every remote gets the shell's copy and theme.
// A team that needs another component adds it here (see README: "Adding a UI component").
export {
  Alert,
  App,
  Button,
  Descriptions,
  Dropdown,
  Flex,
  Form,
  Input,
  Layout,
  Menu,
  Modal,
  Result,
  Select,
  Space,
  Spin,
  Switch,
  Tag,
  Typography,
} from 'antd';
export type { DescriptionsProps, FormInstance, MenuProps, QRCodeProps, SelectProps } from 'antd';
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
export { WaitDialog, type WaitDialogProps } from './WaitDialog.js';
