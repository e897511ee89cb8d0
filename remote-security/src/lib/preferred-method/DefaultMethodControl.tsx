/**
 * A 2-step method's "Use by default" button (an active method that is not the default), or its "Default" tag (the
 * one that is), with the refusal's text when choosing it failed. Nothing for a method that is not active.
 */
import { Button, Tag } from 'shared-ui';
import type { PreferredMethod } from 'shared-auth';
import type { DefaultMethod } from './usePreferredMethod.js';
import { PREFERRED_METHOD_TEXTS as TEXTS } from './texts.js';

interface DefaultMethodControlProps {
  method: PreferredMethod;
  /** The id of the method's heading: the button's description names the method. */
  describedBy: string;
  active: boolean;
  control: DefaultMethod;
}

export function DefaultMethodControl({ method, describedBy, active, control }: DefaultMethodControlProps) {
  const { state } = control;
  if (!active) return null;
  const error = state.target === method && state.error ? state.error : undefined;
  return (
    <div style={{ margin: '8px 0' }}>
      {state.preferred === method ? (
        <Tag color="blue">{TEXTS.tag}</Tag>
      ) : (
        <Button
          size="small"
          aria-describedby={describedBy}
          loading={state.status === 'SAVING' && state.target === method}
          disabled={state.status === 'SAVING'}
          onClick={() => control.choose(method)}
        >
          {TEXTS.use}
        </Button>
      )}
      {error ? (
        <p role="alert" style={{ margin: '4px 0 0', color: '#a8071a' }}>
          {error}
        </p>
      ) : null}
    </div>
  );
}
