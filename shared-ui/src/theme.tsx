import type { ReactNode } from 'react';
import { App, ConfigProvider, type ThemeConfig } from 'antd';

/** The portal's look, in one place so the shell and every remote render alike. */
export const portalTheme: ThemeConfig = {
  token: {
    // Brand red, darkened until white text on it passes WCAG AA (4.5:1).
    colorPrimary: '#c8102e',
    colorLink: '#a50d26',
    // antd's defaults for these fall below 4.5:1 (axe color-contrast): error text #ff4d4f on white 3.3:1, success
    // tags #52c41a on their green 2.2:1, help and description text rgba(0,0,0,.45) 3.4:1.
    colorError: '#cf1322',
    colorSuccess: '#237804',
    // antd derives the success background from that seed as grey-green (#adb8a5, 2.7:1): keep its light ones.
    colorSuccessBg: '#f6ffed',
    colorSuccessBorder: '#b7eb8f',
    colorTextDescription: '#595959',
    borderRadius: 6,
    fontFamily:
      "system-ui, -apple-system, 'Segoe UI', Roboto, 'Helvetica Neue', Arial, 'Noto Sans', sans-serif",
  },
};

/**
 * Where toasts start, from the top of the page: below the shell's header (antd's Layout.Header, 64 px) with antd's
 * usual 24 px gap, so a toast (30 s) never covers the header's user menu.
 */
export const TOAST_TOP_PX = 64 + 24;

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
      <App notification={{ placement: 'topRight', top: TOAST_TOP_PX }}>{children}</App>
    </ConfigProvider>
  );
}
