import { Component, type ErrorInfo, type ReactNode } from 'react';
import { RemoteLoadFailed } from './RemoteLoadFailed.js';

interface Props {
  label: string;
  onRetry: () => void;
  /** Told once per caught error (the load report's `render` failure). */
  onError?: (error: Error) => void;
  children: ReactNode;
}

interface State {
  error: Error | null;
}

/** Keeps a remote that fails to load or render inside its own route: the shell and navigation stay usable. */
export class RemoteErrorBoundary extends Component<Props, State> {
  override state: State = { error: null };

  static getDerivedStateFromError(error: unknown): State {
    return { error: error instanceof Error ? error : new Error(String(error)) };
  }

  override componentDidCatch(error: Error, info: ErrorInfo): void {
    console.error(`The ${this.props.label} page failed:`, error, info.componentStack);
    this.props.onError?.(error);
  }

  override render() {
    const { error } = this.state;
    if (!error) return this.props.children;
    return <RemoteLoadFailed label={this.props.label} onRetry={this.props.onRetry} />;
  }
}
