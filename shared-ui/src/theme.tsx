import type { ReactNode } from 'react';
import { App, ConfigProvider, type ThemeConfig } from 'antd';

/** The portal's look, in one place so the shell and every remote render alike. */
export const portalTheme: ThemeConfig = {
  token: {
    // Brand red, darkened until white text on it passes WCAG AA (4.5:1).
    colorPrimary: '#c8102e',
    colorLink: '#a50d26',
    borderRadius: 6,
    fontFamily:
      "system-ui, -apple-system, 'Segoe UI', Roboto, 'Helvetica Neue', Arial, 'Noto Sans', sans-serif",
  },
};

/**
 * Theme and antd's App context (toasts, modals) for a tree. The shell wraps the page in it; a remote mounted on
 * its own wraps itself, so it looks the same inside an integrator's page.
 */
export function PortalThemeProvider({ children }: { children: ReactNode }) {
  // Honour the user's wish for less motion: antd then opens dialogs and menus without animation.
  const reduceMotion =
    typeof window !== 'undefined' && window.matchMedia?.('(prefers-reduced-motion: reduce)').matches === true;
  const theme = reduceMotion
    ? { ...portalTheme, token: { ...portalTheme.token, motion: false } }
    : portalTheme;
  return (
    <ConfigProvider theme={theme}>
      <App notification={{ placement: 'topRight' }}>{children}</App>
    </ConfigProvider>
  );
}
