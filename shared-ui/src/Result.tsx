import type { CSSProperties, ReactNode } from 'react';
import { theme } from 'antd';
import {
  CheckCircleFilled,
  CloseCircleFilled,
  ExclamationCircleFilled,
  InfoCircleFilled,
} from '@ant-design/icons';

export interface ResultProps {
  status?: 'success' | 'error' | 'info' | 'warning' | '404' | '403' | '500';
  title?: ReactNode;
  subTitle?: ReactNode;
  extra?: ReactNode;
  style?: CSSProperties;
}

/**
 * antd's Result, without its three large illustrations (404, 403, 500: ~9 kB gzip on every first page, since
 * importing Result imports them all). The portal's results are messages with an icon; those codes get one too.
 */
export function Result({ status = 'info', title, subTitle, extra, style }: ResultProps) {
  const { token } = theme.useToken();
  const icons: Record<NonNullable<ResultProps['status']>, ReactNode> = {
    success: <CheckCircleFilled style={{ color: token.colorSuccess }} />,
    error: <CloseCircleFilled style={{ color: token.colorError }} />,
    '500': <CloseCircleFilled style={{ color: token.colorError }} />,
    warning: <ExclamationCircleFilled style={{ color: token.colorWarning }} />,
    '403': <ExclamationCircleFilled style={{ color: token.colorWarning }} />,
    info: <InfoCircleFilled style={{ color: token.colorInfo }} />,
    '404': <InfoCircleFilled style={{ color: token.colorInfo }} />,
  };
  return (
    <div style={{ padding: '48px 32px', textAlign: 'center', ...style }}>
      <div aria-hidden="true" style={{ fontSize: 72, lineHeight: 1, marginBottom: 24 }}>
        {icons[status]}
      </div>
      {title ? (
        <div style={{ color: token.colorTextHeading, fontSize: 24, lineHeight: 1.33, marginBottom: 8 }}>
          {title}
        </div>
      ) : null}
      {subTitle ? (
        <div
          style={{ color: token.colorTextSecondary, fontSize: token.fontSize, lineHeight: token.lineHeight }}
        >
          {subTitle}
        </div>
      ) : null}
      {extra ? <div style={{ marginTop: 24 }}>{extra}</div> : null}
    </div>
  );
}
