/**
 * The "Recent activity" section: the account's security events of the last 90 days, newest first, a page at a
 * time ("Show more"); each one a plain sentence, when, the device and the place, and "This wasn't me", which after
 * a confirmation signs out every session (this one included) and sends the holder to sign in again and change the
 * password. Okta mode: the server's text.
 */
import { useEffect, useRef } from 'react';
import { Button, Flex, Modal, Typography } from 'shared-ui';
import type { ActivityEvent } from 'shared-auth';
import { deviceLine, placeLine } from '../../../lib/clientDescription.js';
import { useNow } from '../../../lib/useNow.js';
import { capitalised, describeWhen } from '../../../lib/when.js';
import { useActivity } from '../hooks/useActivity.js';
import { eventSentence } from '../model/eventSentence.js';
import { ACTIVITY_TEXTS as TEXTS } from '../model/texts.js';
import { ListLoadFailed, ListLoading, PLAIN_LIST_STYLE } from '../../../lib/listStates.js';

const IDS = {
  title: 'activity-title',
  notice: 'activity-notice',
  more: 'activity-show-more',
} as const;
const notMeId = (eventId: string) => `activity-not-me-${eventId}`;
const byId = (id: string) => document.getElementById(id);

interface ActivitySectionProps {
  /** Changes when the page knows of a new event (a sign-out on Devices): the list is read again, newest first. */
  refreshSignal?: number;
  /** The server refused a federated account (the portal's own provider's data): the page says so instead. */
  onFederatedRefused?: () => void;
}

export function ActivitySection({ refreshSignal = 0, onFederatedRefused }: ActivitySectionProps = {}) {
  const activity = useActivity({ onFederatedRefused });
  const { reload } = activity;
  useEffect(() => {
    if (refreshSignal > 0) reload();
  }, [refreshSignal, reload]);
  const { list, notMe, handOver } = activity;
  const now = useNow();

  // The report's outcome takes the focus: the failure, or that the holder is signed out; a cancel gives it back
  // to the event's button.
  const { status: notMeStatus, eventId } = notMe;
  useEffect(() => {
    if (notMeStatus === 'FAILED' || notMeStatus === 'SIGNED_OUT') byId(IDS.notice)?.focus();
    else if (notMeStatus === 'IDLE' && eventId !== undefined) byId(notMeId(eventId))?.focus();
  }, [notMeStatus, eventId]);

  // After "Show more": the focus goes on to the first event of the new page (the button may be gone).
  const shownCount = useRef(list.events.length);
  useEffect(() => {
    const before = shownCount.current;
    shownCount.current = list.events.length;
    const first = list.events[before];
    if (before > 0 && first) byId(notMeId(first.id))?.focus();
  }, [list.events]);
  // A next page that failed: back on "Show more" (a new button), under the message that says why.
  const moreFailed = list.more === 'FAILED';
  useEffect(() => {
    if (moreFailed) byId(IDS.more)?.focus();
  }, [moreFailed]);

  const notice =
    notMeStatus === 'FAILED'
      ? notMe.message
      : notMeStatus === 'SIGNED_OUT'
        ? handOver === 'NO_WAY'
          ? TEXTS.signInYourself
          : TEXTS.signedOut
        : undefined;

  let body;
  switch (list.status) {
    case 'LOADING':
      body = <ListLoading label={TEXTS.loading} />;
      break;
    case 'FAILED':
      body = <ListLoadFailed message={list.message} retryLabel={TEXTS.tryAgain} onRetry={activity.reload} />;
      break;
    case 'UNAVAILABLE':
      body = <p>{list.message}</p>;
      break;
    case 'LOADED':
      body =
        list.events.length === 0 ? (
          <p>{TEXTS.empty}</p>
        ) : (
          <>
            <ul aria-label={TEXTS.listLabel} style={PLAIN_LIST_STYLE}>
              {list.events.map((event) => (
                <EventItem
                  key={event.id}
                  event={event}
                  now={now}
                  disabled={notMeStatus === 'REPORTING' || notMeStatus === 'SIGNED_OUT'}
                  onNotMe={activity.askNotMe}
                />
              ))}
            </ul>
            {list.more === 'FAILED' ? <p role="alert">{list.message}</p> : null}
            {list.next !== null ? (
              <Button
                // A new button once the page is read: antd's loading icon can stay behind (and in the name).
                key={list.more === 'LOADING' ? 'loading' : 'ready'}
                id={IDS.more}
                loading={list.more === 'LOADING'}
                onClick={activity.showMore}
              >
                {TEXTS.showMore}
              </Button>
            ) : null}
          </>
        );
      break;
  }

  const reported = list.events.find((event) => event.id === eventId);
  const reporting = notMeStatus === 'REPORTING';
  return (
    <section aria-labelledby={IDS.title} style={{ padding: '16px 0' }}>
      <Typography.Title level={2} id={IDS.title} tabIndex={-1} style={{ fontSize: 20, margin: 0 }}>
        {TEXTS.title}
      </Typography.Title>
      <p style={{ margin: '4px 0 12px' }}>{TEXTS.intro}</p>
      {/* Always in the page, so screen readers hear the result; it takes the focus when it changes. */}
      <p
        id={IDS.notice}
        tabIndex={-1}
        role={notMeStatus === 'FAILED' ? 'alert' : 'status'}
        style={notice ? { color: notMeStatus === 'FAILED' ? '#a8071a' : undefined } : { margin: 0 }}
      >
        {notice}
      </p>
      {body}
      <Modal
        open={notMeStatus === 'CONFIRMING' || reporting}
        title={TEXTS.notMeTitle}
        onCancel={reporting ? undefined : activity.cancelNotMe}
        closable={!reporting}
        // The section places the focus itself: on the outcome, or back on the event's button.
        focusable={{ focusTriggerAfterClose: false }}
        destroyOnHidden
        footer={
          <Flex gap={12} justify="flex-end" wrap>
            <Button disabled={reporting} onClick={activity.cancelNotMe}>
              {TEXTS.cancel}
            </Button>
            <Button type="primary" danger loading={reporting} onClick={activity.confirmNotMe}>
              {TEXTS.notMeConfirm}
            </Button>
          </Flex>
        }
      >
        {reported ? (
          <p>
            <strong>{eventSentence(reported)}</strong> · {capitalised(describeWhen(reported.at, now))}
          </p>
        ) : null}
        <p>{TEXTS.notMeText}</p>
      </Modal>
    </section>
  );
}

interface EventItemProps {
  event: ActivityEvent;
  now: number;
  disabled: boolean;
  onNotMe: (eventId: string) => void;
}

function EventItem({ event, now, disabled, onNotMe }: EventItemProps) {
  const sentence = eventSentence(event);
  const when = capitalised(describeWhen(event.at, now));
  const details = [deviceLine(event), placeLine(event)].filter(Boolean);
  return (
    <li style={{ padding: '8px 0', borderBottom: '1px solid #f0f0f0' }}>
      <Flex justify="space-between" align="center" gap={12} wrap>
        <div>
          <strong>{sentence}</strong>
          <div>
            <time dateTime={event.at}>{when}</time>
            {details.length > 0 ? ` · ${details.join(' · ')}` : null}
          </div>
        </div>
        <Button
          id={notMeId(event.id)}
          aria-label={TEXTS.notMeNamed(sentence, when)}
          disabled={disabled}
          onClick={() => onNotMe(event.id)}
        >
          {TEXTS.notMe}
        </Button>
      </Flex>
    </li>
  );
}
