// The antd form controls, shared as their own singleton ('shared-ui/forms'). Most first renders show no form
// (the profile's read-only view, the password page's first view), so these — rc-form, rc-select and its
// virtual list, the input — load only when a remote first renders a form, instead of with the first page.
// They live in the same build as 'shared-ui', so they read the same theme (ConfigProvider context).
export { Form, Input, Select, Switch } from 'antd';
export type { FormInstance, FormProps, InputRef, SelectProps } from 'antd';
