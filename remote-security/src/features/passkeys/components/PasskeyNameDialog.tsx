import { useId, useRef, useState, type FormEvent } from 'react';
import { Button, Flex, Modal } from 'shared-ui';
import { Input, type InputRef } from 'shared-ui/forms';
import { nameError } from '../model/passkeys.js';
import { PASSKEYS_TEXTS as TEXTS } from '../model/texts.js';

export interface PasskeyNameDialogProps {
  /** The passkey just added (Skip keeps the server's name) or Rename (Cancel keeps the name). */
  naming: 'NEW' | 'RENAME';
  /** The name it has: the server's default for a new passkey. */
  name: string;
  saving: boolean;
  /** A name the server refused. */
  error: string | undefined;
  onSave: (name: string) => void;
  onClose: () => void;
}

/** 'Name your passkey' / 'Rename passkey': a name of 1 to 64 characters, checked before it is sent. */
export default function PasskeyNameDialog({
  naming,
  name,
  saving,
  error,
  onSave,
  onClose,
}: PasskeyNameDialogProps) {
  const id = useId();
  const ids = { field: `${id}-name`, help: `${id}-help`, error: `${id}-error` };
  const field = useRef<InputRef>(null);
  const [value, setValue] = useState(name);
  const [checked, setChecked] = useState<string>();
  const shown = checked ?? error;

  function submit(event: FormEvent) {
    event.preventDefault();
    if (saving) return;
    const invalid = nameError(value);
    setChecked(invalid);
    if (invalid) {
      field.current?.focus();
      return;
    }
    onSave(value);
  }

  return (
    <Modal
      open
      title={naming === 'NEW' ? TEXTS.nameTitle : TEXTS.renameTitle}
      onCancel={saving ? undefined : onClose}
      // Into the field, its text selected, once the dialog is open (the dialog itself takes the focus first).
      afterOpenChange={(open) => {
        if (!open) return;
        field.current?.focus();
        field.current?.select();
      }}
      // The section gives the focus back itself: the dialog goes away with its state.
      focusable={{ focusTriggerAfterClose: false }}
      mask={{ closable: false }}
      footer={null}
      destroyOnHidden
    >
      <form onSubmit={submit} noValidate>
        <label htmlFor={ids.field} style={{ display: 'block', fontWeight: 600, margin: '8px 0 4px' }}>
          {TEXTS.nameLabel}
        </label>
        <Input
          id={ids.field}
          ref={field}
          value={value}
          autoComplete="off"
          onChange={(event) => {
            setValue(event.target.value);
            setChecked(undefined);
          }}
          status={shown ? 'error' : undefined}
          aria-required="true"
          aria-invalid={shown ? true : undefined}
          aria-describedby={shown ? `${ids.error} ${ids.help}` : ids.help}
        />
        {shown ? (
          <div id={ids.error} role="alert" style={{ color: '#a8071a', marginTop: 4 }}>
            {shown}
          </div>
        ) : null}
        <p id={ids.help} style={{ margin: '8px 0 0' }}>
          {TEXTS.nameHelp}
        </p>
        <Flex gap={12} justify="flex-end" style={{ marginTop: 24 }}>
          <Button onClick={onClose} disabled={saving}>
            {naming === 'NEW' ? TEXTS.skip : 'Cancel'}
          </Button>
          <Button key={saving ? 'saving' : 'ready'} type="primary" htmlType="submit" loading={saving}>
            {TEXTS.save}
          </Button>
        </Flex>
      </form>
    </Modal>
  );
}
