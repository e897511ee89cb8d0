/**
 * The "Devices" section: every live session of the account, this device first and marked, each with its browser
 * and system, desktop or mobile, country and coarse address, when it signed in and was last active; "Sign out" on
 * each other one and "Sign out of all other devices" (asked first), both under step-up. Okta mode (`reach:
 * 'portal'`): the sign-ins that used this portal, a note that signing one out ends only its use of this portal, and
 * "Sign out everywhere" (asked first; this session ends too, then the holder signs in again). A server that cannot
 * list them: its text and "Sign out everywhere". */
import { lazy, Suspense, useEffect, useRef } from 'react';
import { Button, Flex, Modal, Spin, Tag, Typography } from 'shared-ui';
import type { AccountSession } from 'shared-auth';
import { deviceName, deviceTypeName, placeLine } from '../../../lib/clientDescription.js';
import { useNow } from '../../../lib/useNow.js';
import { describeWhen } from '../../../lib/when.js';
import { useDevices } from '../hooks/useDevices.js';
import { otherSessions } from '../model/sessionsList.js';
import { busyWith, type SignOutTarget } from '../model/signOutFlow.js';
import { DEVICES_TEXTS as TEXTS } from '../model/texts.js';
import { byId, IDS, signOutId } from './ids.js';
import { ListLoadFailed, ListLoading, PLAIN_LIST_STYLE } from '../../../lib/listStates.js';

const loadStepUpDialog = () => import(/* webpackChunkName: "devices-step-up" */ './StepUpDialog.js');
const StepUpDialog = lazy(loadStepUpDialog);

/** The button a sign-out started from: where the focus goes back when it is cancelled. */
function triggerId(target: SignOutTarget | undefined): string {
  if (target?.scope === 'one') return signOutId(target.id);
  return target?.scope === 'everywhere' ? IDS.everywhere : IDS.others;
}

interface DevicesSectionProps {
  /** Sessions were signed out here: the page refreshes what else shows them (its activity). */
  onSignedOut?: () => void;
  /** The server refused a federated account (the portal's own provider's data): the page says so instead. */
  onFederatedRefused?: () => void;
}

export function DevicesSection({ onSignedOut, onFederatedRefused }: DevicesSectionProps = {}) {
  const devices = useDevices({ onSignedOut, onFederatedRefused });
  const { list, flow } = devices;
  const now = useNow();
  const { status } = flow;

  // The result takes the focus (the button pressed may be gone); a cancel gives it back to the button.
  const previous = useRef(status);
  useEffect(() => {
    const was = previous.current;
    previous.current = status;
    if (was === status) return;
    if (status === 'DONE' || status === 'FAILED' || status === 'SIGNED_OUT_EVERYWHERE')
      byId(IDS.notice)?.focus();
    else if (status === 'IDLE') (byId(triggerId(flow.target)) ?? byId(IDS.title))?.focus();
  }, [status, flow.target]);

  // The step-up chunk starts loading while the challenge is read.
  useEffect(() => {
    if (status === 'STEP_UP_LOADING') void loadStepUpDialog();
  }, [status]);

  const busy = busyWith(flow);
  const notice =
    status === 'DONE' || status === 'FAILED'
      ? flow.message
      : status === 'SIGNED_OUT_EVERYWHERE'
        ? TEXTS.signedOutEverywhere
        : undefined;

  // Okta mode: a sign-out here ends only the device's use of this portal.
  const portal = list.reach === 'portal';
  const everywhereButton = (
    <Button
      // A new button once the sign-out ends: antd's loading icon can stay behind (and in the name) otherwise.
      key={busy?.scope === 'everywhere' ? 'busy' : 'ready'}
      id={IDS.everywhere}
      danger
      loading={busy?.scope === 'everywhere'}
      disabled={status === 'SIGNED_OUT_EVERYWHERE'}
      onClick={() => devices.signOut({ scope: 'everywhere' })}
    >
      {TEXTS.everywhere}
    </Button>
  );

  let body;
  switch (list.status) {
    case 'LOADING':
      body = <ListLoading label={TEXTS.loading} />;
      break;
    case 'FAILED':
      body = <ListLoadFailed message={list.message} retryLabel={TEXTS.tryAgain} onRetry={devices.reload} />;
      break;
    case 'UNAVAILABLE':
      body = (
        <>
          <p>{list.message}</p>
          {everywhereButton}
        </>
      );
      break;
    case 'LOADED': {
      const others = otherSessions(list);
      body = (
        <>
          {portal ? <p>{TEXTS.portalNote}</p> : null}
          <ul aria-label={TEXTS.listLabel} style={PLAIN_LIST_STYLE}>
            {list.sessions.map((session) => (
              <SessionItem
                key={session.id}
                session={session}
                now={now}
                busy={busy?.scope === 'one' && busy.id === session.id}
                onSignOut={devices.signOut}
              />
            ))}
          </ul>
          {others.length > 0 ? (
            <Button
              key={busy?.scope === 'others' ? 'busy' : 'ready'}
              id={IDS.others}
              loading={busy?.scope === 'others'}
              onClick={() => devices.signOut({ scope: 'others' })}
            >
              {TEXTS.signOutOthers}
            </Button>
          ) : (
            <p>{TEXTS.noOthers}</p>
          )}
          {portal ? <div style={{ marginTop: 12 }}>{everywhereButton}</div> : null}
        </>
      );
      break;
    }
  }

  const everywhere = flow.target?.scope === 'everywhere';
  return (
    <section aria-labelledby={IDS.title} style={{ padding: '16px 0' }}>
      {/* Focusable from script only: where the focus goes when no control of the section can take it. */}
      <Typography.Title level={2} id={IDS.title} tabIndex={-1} style={{ fontSize: 20, margin: 0 }}>
        {TEXTS.title}
      </Typography.Title>
      <p style={{ margin: '4px 0 12px' }}>{portal ? TEXTS.introPortal : TEXTS.intro}</p>
      {/* Always in the page, so screen readers hear the result; it takes the focus when it changes. */}
      <p
        id={IDS.notice}
        tabIndex={-1}
        role={status === 'FAILED' ? 'alert' : 'status'}
        style={notice ? { color: status === 'FAILED' ? '#a8071a' : undefined } : { margin: 0 }}
      >
        {notice}
      </p>
      {status === 'FAILED' && flow.signInAgain ? (
        <Button onClick={devices.signInAgain} style={{ marginBottom: 12 }}>
          {TEXTS.signInAgain}
        </Button>
      ) : null}
      {body}
      <Modal
        open={status === 'CONFIRMING'}
        title={everywhere ? TEXTS.everywhereTitle : TEXTS.othersTitle}
        onCancel={devices.cancel}
        // The section places the focus itself: on the result, or back on the button on cancel.
        focusable={{ focusTriggerAfterClose: false }}
        destroyOnHidden
        footer={
          <Flex gap={12} justify="flex-end" wrap>
            <Button onClick={devices.cancel}>{TEXTS.cancel}</Button>
            <Button type="primary" danger onClick={devices.confirm}>
              {everywhere ? TEXTS.everywhere : TEXTS.signOutOthers}
            </Button>
          </Flex>
        }
      >
        <p>{everywhere ? TEXTS.everywhereText : portal ? TEXTS.othersTextPortal : TEXTS.othersText}</p>
      </Modal>
      {status === 'STEP_UP_LOADING' ? <Spin aria-label={TEXTS.loadingStepUp} /> : null}
      {status === 'STEPPING_UP' && flow.activeFactorsData ? (
        <Suspense fallback={<Spin aria-label={TEXTS.loadingStepUp} />}>
          <StepUpDialog
            activeFactorsData={flow.activeFactorsData}
            recoveryCodes={flow.recoveryCodes}
            preferredMethod={flow.preferredMethod}
            onVerified={devices.stepUpVerified}
            onRetry={devices.stepUpRetry}
            onCancel={devices.cancel}
          />
        </Suspense>
      ) : null}
    </section>
  );
}

interface SessionItemProps {
  session: AccountSession;
  now: number;
  busy: boolean;
  onSignOut: (target: SignOutTarget) => void;
}

function SessionItem({ session, now, busy, onSignOut }: SessionItemProps) {
  const name = deviceName(session);
  const place = placeLine(session);
  const kind = deviceTypeName(session.deviceType);
  const signedIn = describeWhen(session.signedInAt, now);
  const lastActive = session.lastActiveAt ? describeWhen(session.lastActiveAt, now) : '';
  return (
    <li style={{ padding: '8px 0', borderBottom: '1px solid #f0f0f0' }}>
      <Flex justify="space-between" align="center" gap={12} wrap>
        <div>
          <strong>{name}</strong>
          {session.current ? (
            <Tag color="blue" style={{ marginLeft: 8 }}>
              {TEXTS.thisDevice}
            </Tag>
          ) : null}
          {kind || place ? <div>{[kind, place].filter(Boolean).join(' · ')}</div> : null}
          <div>
            <time dateTime={session.signedInAt}>{TEXTS.signedIn(signedIn)}</time>
            {lastActive && session.lastActiveAt ? (
              <>
                {' · '}
                <time dateTime={session.lastActiveAt}>{TEXTS.lastActive(lastActive)}</time>
              </>
            ) : null}
          </div>
        </div>
        {session.current ? null : (
          <Button
            key={busy ? 'busy' : 'ready'}
            id={signOutId(session.id)}
            aria-label={TEXTS.signOutNamed(name)}
            loading={busy}
            onClick={() => onSignOut({ scope: 'one', id: session.id, name })}
          >
            {TEXTS.signOut}
          </Button>
        )}
      </Flex>
    </li>
  );
}
