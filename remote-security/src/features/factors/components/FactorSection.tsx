/**
 * One factor's section of the Security page: its switch, title and text, its error and loading views, the date
 * it was added, "Use by default" or the "Default" tag (issue 22) and its "remove" link; the kind's own part (its
 * set-up, what it shows when on) is `children`.
 */
import type { ReactNode } from 'react';
import { Button, Flex, Spin, Typography } from 'shared-ui';
import { Switch } from 'shared-ui/forms';
import { DefaultMethodControl } from '../../../lib/preferred-method/DefaultMethodControl.js';
import type { useFactors } from '../hooks/useFactors.js';
import type { FactorKind } from '../model/kinds/index.js';
import { addedLabel, canRemove, isSwitchDisabled } from '../model/factors.js';
import { UNEXPECTED_ERROR } from './texts.js';

export const switchId = (factor: FactorKind) => `factor-${factor}-switch`;
export const titleId = (factor: FactorKind) => `factor-${factor}-title`;

/** What every kind's section gets from the page. */
export interface KindSectionProps {
  facts: ReturnType<typeof useFactors>;
  onRetry: () => void;
}

interface SectionProps extends KindSectionProps {
  factor: FactorKind;
  title: string;
  text: string;
  switchLabel: string;
  children?: ReactNode;
}

export function FactorSection({ factor, title, text, switchLabel, children, facts, onRetry }: SectionProps) {
  const { state, otherMethods } = facts;
  // The last-method rule counts every active 2-step method: the factors and the holder's passkeys.
  const activeCount = facts.activeCount + otherMethods;
  const view = state.views[factor];
  const entry = state.data[factor];
  const on = entry?.status === 'ACTIVE';
  const loading = view.enrolment === 'INITIAL' || view.busy;
  const disabled = isSwitchDisabled(factor, {
    loading,
    on,
    factorsCount: state.factorsCount + otherMethods,
    activeCount,
  });
  const added = on ? addedLabel(entry?.enrolledDate) : undefined;

  return (
    <section aria-labelledby={titleId(factor)} style={{ borderTop: '1px solid #f0f0f0', padding: '16px 0' }}>
      {/* The switch leads the row: top-right toasts never cover it. */}
      <Flex align="flex-start" gap={16}>
        <Switch
          id={switchId(factor)}
          aria-label={switchLabel}
          checked={on || view.enrolling}
          disabled={disabled}
          loading={view.busy}
          onChange={(checked) => (checked ? facts.switchOn(factor) : facts.switchOff(factor))}
          style={{ marginTop: 4 }}
        />
        <div>
          {/* Focusable from script only: where the focus goes when no control of the section can take it. */}
          <Typography.Title level={2} id={titleId(factor)} tabIndex={-1} style={{ fontSize: 20, margin: 0 }}>
            {title}
          </Typography.Title>
          <p style={{ margin: '4px 0 0' }}>{text}</p>
        </div>
      </Flex>
      {view.enrolment === 'ERROR' ? (
        <>
          <p role="alert" style={{ marginTop: 12 }}>
            {UNEXPECTED_ERROR}
          </p>
          <Button onClick={onRetry}>Try again</Button>
        </>
      ) : view.enrolment === 'INITIAL' ? (
        <Spin aria-label={`Loading ${title}`} style={{ marginTop: 12 }} />
      ) : (
        <>
          {children}
          {added ? <p style={{ margin: '8px 0 0' }}>{added}</p> : null}
          {facts.defaultMethod ? (
            <DefaultMethodControl
              method={factor}
              describedBy={titleId(factor)}
              active={on && !view.busy}
              control={facts.defaultMethod}
            />
          ) : null}
          {view.enrolment === 'ACTIVE' && canRemove(activeCount) ? (
            <Button type="link" onClick={() => facts.remove(factor)} style={{ paddingLeft: 0 }}>
              remove
            </Button>
          ) : null}
        </>
      )}
    </section>
  );
}
