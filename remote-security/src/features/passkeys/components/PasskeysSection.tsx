/**
 * The Security page's "Passkeys" section: the holder's passkeys (name, when added and last used, synced), Add,
 * Rename and Remove. Hidden where the identity backend cannot hold passkeys for the portal. The WebAuthn library
 * loads only when a ceremony starts (shared-stepup's webauthn), never with the page.
 */
import { lazy, Suspense, useEffect, useRef } from 'react';
import { Button, Flex, Modal, Spin, Tag, Typography } from 'shared-ui';
import { supportsWebAuthn } from 'shared-stepup';
import type { Passkey } from 'shared-auth';
import { focusFirst } from '../../../lib/focusFirst.js';
import { ConfirmItsYouDialog } from '../../../lib/reauthentication/ConfirmItsYouDialog.js';
import { usePasskeys, type PasskeysOptions } from '../hooks/usePasskeys.js';
import { canAddHere, isAvailable, passkeyDates, targetOf } from '../model/passkeys.js';
import { PASSKEYS_TEXTS as TEXTS } from '../model/texts.js';

const PasskeyNameDialog = lazy(() => import('./PasskeyNameDialog.js'));

const IDS = {
  title: 'passkeys-title',
  add: 'passkeys-add',
  unsupported: 'passkeys-unsupported',
  notice: 'passkeys-notice',
} as const;
export const renameId = (id: string) => `passkey-rename-${id}`;
export const removeId = (id: string) => `passkey-remove-${id}`;

const byId = (id: string | undefined) => (id === undefined ? null : document.getElementById(id));

export type PasskeysSectionProps = PasskeysOptions;

export function PasskeysSection(props: PasskeysSectionProps) {
  const passkeys = usePasskeys(props);
  const { state, reauthentication } = passkeys;
  const { view, list, target } = state;

  // Back to the list: the focus goes to the control that fits, since the one that was pressed may be gone.
  const previous = useRef(view);
  useEffect(() => {
    const was = previous.current;
    previous.current = view;
    if (view !== 'READY' || was === 'READY') return;
    const add = byId(IDS.add);
    const heading = byId(IDS.title);
    if (was === 'ADDING') focusFirst(add, heading);
    else if (was === 'REMOVING') focusFirst(byId(target && removeId(target)), add, heading);
    else if (was === 'NAMING' || was === 'SAVING_NAME')
      focusFirst(byId(target && renameId(target)), add, heading);
  }, [view, target]);

  // "Confirm it's you" has closed: with the add cancelled, back to Add; an add that goes on places it itself.
  const { returnFocus } = reauthentication.state;
  useEffect(() => {
    if (!returnFocus) return;
    if (view === 'READY') focusFirst(reauthentication.opener(), byId(IDS.add), byId(IDS.title));
    reauthentication.focusReturned();
  }, [returnFocus, view, reauthentication]);

  if (view !== 'LOADING' && view !== 'ERROR' && !isAvailable(list)) return null;

  let body;
  if (view === 'LOADING') body = <Spin aria-label={`Loading ${TEXTS.title}`} />;
  else if (view === 'ERROR')
    body = (
      <>
        <p role="alert">{TEXTS.unexpectedError}</p>
        <Button onClick={passkeys.reload}>Try again</Button>
      </>
    );
  else {
    const supported = supportsWebAuthn();
    const adding = view === 'ADDING';
    body = (
      <>
        {state.notice ? (
          <p id={IDS.notice} role="alert" style={{ color: '#a8071a' }}>
            {state.notice}
          </p>
        ) : null}
        {list && list.passkeys.length > 0 ? (
          <ul aria-label="Your passkeys" style={{ listStyle: 'none', padding: 0, margin: '0 0 12px' }}>
            {list.passkeys.map((passkey) => (
              <PasskeyItem
                key={passkey.id}
                passkey={passkey}
                canRename={list.canRename}
                removing={view === 'REMOVING' && target === passkey.id}
                onRename={() => passkeys.rename(passkey.id)}
                onRemove={() => passkeys.remove(passkey.id)}
              />
            ))}
          </ul>
        ) : (
          <p>{TEXTS.none}</p>
        )}
        {canAddHere(list) ? (
          <>
            {supported ? null : <p id={IDS.unsupported}>{TEXTS.unsupported}</p>}
            {/* A new button once the add ends: antd's loading icon can stay behind (and in the name) otherwise. */}
            <Button
              key={adding ? 'adding' : 'ready'}
              id={IDS.add}
              type="primary"
              disabled={!supported}
              aria-describedby={supported ? undefined : IDS.unsupported}
              loading={adding}
              onClick={passkeys.add}
            >
              {TEXTS.add}
            </Button>
          </>
        ) : null}
      </>
    );
  }

  const named = targetOf(state);
  return (
    <section aria-labelledby={IDS.title} style={{ borderTop: '1px solid #f0f0f0', padding: '16px 0' }}>
      {/* Focusable from script only: where the focus goes when no control of the section can take it. */}
      <Typography.Title level={2} id={IDS.title} tabIndex={-1} style={{ fontSize: 20, margin: 0 }}>
        {TEXTS.title}
      </Typography.Title>
      <p style={{ margin: '4px 0 12px' }}>{TEXTS.intro}</p>
      {body}
      <Modal
        open={view === 'CONFIRM_REMOVE'}
        title={TEXTS.removeTitle}
        onCancel={passkeys.cancelRemove}
        destroyOnHidden
        footer={
          <Flex gap={12} justify="flex-end">
            <Button onClick={passkeys.cancelRemove}>Cancel</Button>
            <Button type="primary" onClick={passkeys.confirmRemove}>
              Confirm
            </Button>
          </Flex>
        }
      >
        <p>{named ? TEXTS.removeText(named.name) : null}</p>
      </Modal>
      {(view === 'NAMING' || view === 'SAVING_NAME') && named && state.naming ? (
        <Suspense fallback={<Spin aria-label="Loading the name of your passkey" />}>
          <PasskeyNameDialog
            key={named.id}
            naming={state.naming}
            name={named.name}
            saving={view === 'SAVING_NAME'}
            error={state.nameError}
            onSave={passkeys.saveName}
            onClose={passkeys.closeName}
          />
        </Suspense>
      ) : null}
      <ConfirmItsYouDialog
        status={reauthentication.state.status}
        error={reauthentication.state.error}
        onConfirm={reauthentication.submit}
        onSignInAgain={reauthentication.signInAgain}
        onCancel={reauthentication.cancel}
        afterClose={reauthentication.closed}
      />
    </section>
  );
}

interface PasskeyItemProps {
  passkey: Passkey;
  canRename: boolean;
  removing: boolean;
  onRename: () => void;
  onRemove: () => void;
}

function PasskeyItem({ passkey, canRename, removing, onRename, onRemove }: PasskeyItemProps) {
  const { added, used } = passkeyDates(passkey);
  return (
    <li style={{ padding: '8px 0', borderBottom: '1px solid #f0f0f0' }}>
      <Flex justify="space-between" align="center" gap={12} wrap>
        <div>
          <strong>{passkey.name}</strong>
          {passkey.synced ? <Tag style={{ marginLeft: 8 }}>{TEXTS.synced}</Tag> : null}
          <div>{[added, used].filter(Boolean).join(' · ')}</div>
        </div>
        <Flex gap={8}>
          {canRename ? (
            <Button
              id={renameId(passkey.id)}
              aria-label={`${TEXTS.rename} ${passkey.name}`}
              onClick={onRename}
            >
              {TEXTS.rename}
            </Button>
          ) : null}
          <Button
            id={removeId(passkey.id)}
            aria-label={`${TEXTS.remove} ${passkey.name}`}
            loading={removing}
            onClick={onRemove}
          >
            {TEXTS.remove}
          </Button>
        </Flex>
      </Flex>
    </li>
  );
}
