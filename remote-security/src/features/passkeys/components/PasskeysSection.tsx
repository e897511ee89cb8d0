/**
 * The Security page's "Passkeys" section: the holder's passkeys (name, when added and last used, synced), Add,
 * Rename and Remove (no Rename where the backend keeps no names of ours). Hidden where the identity backend cannot
 * hold passkeys for the portal. Add runs the browser's ceremony here, after 'Create passkey' when a verification
 * came first; or (hosted) leaves for the identity provider's own page. The WebAuthn library loads only when a
 * ceremony starts (shared-stepup's webauthn), never with the page.
 */
import { lazy, Suspense, useEffect, useRef } from 'react';
import { Button, Flex, Modal, Spin, Tag, Typography } from 'shared-ui';
import { supportsWebAuthn } from 'shared-stepup';
import type { Passkey } from 'shared-auth';
import { focusFirst } from '../../../lib/focusFirst.js';
import { DefaultMethodControl } from '../../../lib/preferred-method/DefaultMethodControl.js';
import { ConfirmItsYouDialog } from '../../../lib/reauthentication/ConfirmItsYouDialog.js';
import { usePasskeys, type PasskeysOptions } from '../hooks/usePasskeys.js';
import { addMode, isAvailable, passkeyDates, targetOf } from '../model/passkeys.js';
import { PASSKEYS_TEXTS as TEXTS } from '../model/texts.js';
import { byId, IDS, removeId, renameId } from './ids.js';

const PasskeyNameDialog = lazy(() => import('./PasskeyNameDialog.js'));

export type PasskeysSectionProps = PasskeysOptions;

export function PasskeysSection(props: PasskeysSectionProps) {
  const passkeys = usePasskeys(props);
  const { state, confirmItsYou } = passkeys;
  const { view, list, target } = state;
  const createButton = useRef<HTMLButtonElement>(null);

  // Back to the list: the focus goes to the control that fits, since the one that was pressed may be gone.
  const previous = useRef(view);
  useEffect(() => {
    const was = previous.current;
    previous.current = view;
    if (view !== 'READY' || was === 'READY') return;
    const add = byId(IDS.add);
    const heading = byId(IDS.title);
    if (was === 'ADDING' || was === 'CREATE_READY') focusFirst(add, heading);
    else if (was === 'REMOVING') focusFirst(byId(target && removeId(target)), add, heading);
    else if (was === 'NAMING' || was === 'SAVING_NAME')
      focusFirst(byId(target && renameId(target)), add, heading);
  }, [view, target]);

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
    const mode = addMode(list);
    const described = [supported ? '' : IDS.unsupported, mode?.type === 'hosted' ? IDS.hosted : '']
      .filter(Boolean)
      .join(' ');
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
        {props.defaultMethod ? (
          <DefaultMethodControl
            method="passkey"
            describedBy={IDS.title}
            active={(list?.passkeys.length ?? 0) > 0 && view === 'READY'}
            control={props.defaultMethod}
          />
        ) : null}
        {mode ? (
          <>
            {supported ? null : <p id={IDS.unsupported}>{TEXTS.unsupported}</p>}
            {/* A new button once the add ends: antd's loading icon can stay behind (and in the name) otherwise. */}
            <Button
              key={adding ? 'adding' : 'ready'}
              id={IDS.add}
              type="primary"
              disabled={!supported}
              aria-describedby={described || undefined}
              loading={adding}
              onClick={passkeys.add}
            >
              {TEXTS.add}
            </Button>
            {/* Under the section's button: where the holder is about to go, and that they come back. */}
            {mode.type === 'hosted' ? (
              <p id={IDS.hosted} style={{ margin: '8px 0 0' }}>
                {TEXTS.hostedNote}
              </p>
            ) : null}
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
      <Modal
        open={view === 'CREATE_READY'}
        title={TEXTS.createTitle}
        onCancel={passkeys.cancelCreate}
        // To the button whose click starts the ceremony (the dialog itself takes the focus first).
        afterOpenChange={(open) => {
          if (open) createButton.current?.focus();
        }}
        // The section gives the focus back itself: to Add on Cancel, to the name dialog once added.
        focusable={{ focusTriggerAfterClose: false }}
        mask={{ closable: false }}
        destroyOnHidden
        footer={
          <Flex gap={12} justify="flex-end">
            <Button onClick={passkeys.cancelCreate}>Cancel</Button>
            {/* The ceremony starts inside this click: browsers that ask for a user gesture (Safari) allow it. */}
            <Button ref={createButton} type="primary" onClick={passkeys.create}>
              {TEXTS.create}
            </Button>
          </Flex>
        }
      >
        <p>{TEXTS.createText}</p>
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
      <ConfirmItsYouDialog {...confirmItsYou.dialog} />
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
