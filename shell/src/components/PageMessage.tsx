import type { ReactNode } from 'react';
import { Result } from 'shared-ui';

interface PageMessageProps {
  status: 'info' | 'warning' | 'error' | '404';
  title: string;
  subTitle?: ReactNode;
  extra?: ReactNode;
}

/** A whole-page message (a failed remote, a missing page): its title is the page's heading. */
export function PageMessage({ status, title, subTitle, extra }: PageMessageProps) {
  return (
    <Result
      status={status}
      title={<h1 style={{ font: 'inherit', margin: 0 }}>{title}</h1>}
      subTitle={subTitle}
      extra={extra}
    />
  );
}
