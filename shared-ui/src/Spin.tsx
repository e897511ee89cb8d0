import { Spin as AntSpin, type SpinProps as AntSpinProps } from 'antd';
import type { AriaAttributes } from 'react';

export type SpinProps = AntSpinProps & AriaAttributes;

/**
 * antd's Spin. antd renders it as a plain div, where a name (aria-label) is not allowed (axe:
 * aria-prohibited-attr) and is not read out: a named spinner is a status, so its name is announced.
 */
export function Spin(props: SpinProps) {
  // antd passes unknown props on to its div; its types just do not list `role`.
  const status: Record<string, string> = props['aria-label'] ? { role: 'status' } : {};
  return <AntSpin {...status} {...props} />;
}
