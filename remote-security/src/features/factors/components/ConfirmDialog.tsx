import { Button, Flex, Modal } from 'shared-ui';
import type { ConfirmDialog as Dialog } from '../model/factorsReducer.js';
import { DIALOGS, TURN_OFF_REMOVES_TEXTS } from './texts.js';

interface ConfirmDialogProps {
  dialog: Dialog;
  onCancel: () => void;
  onConfirm: () => void;
}

function textsOf(dialog: NonNullable<Dialog>) {
  const texts = DIALOGS[dialog.kind][dialog.factor];
  return dialog.kind === 'turnOff' && dialog.turnOff === 'removes'
    ? { ...texts, text: TURN_OFF_REMOVES_TEXTS[dialog.factor] }
    : texts;
}

/** Cancel / Confirm before turning a factor off or removing it. */
export function ConfirmDialog({ dialog, onCancel, onConfirm }: ConfirmDialogProps) {
  const texts = dialog ? textsOf(dialog) : undefined;
  return (
    <Modal
      open={dialog !== null}
      title={texts?.title}
      onCancel={onCancel}
      destroyOnHidden
      footer={
        <Flex gap={12} justify="flex-end">
          <Button onClick={onCancel}>Cancel</Button>
          <Button type="primary" onClick={onConfirm}>
            Confirm
          </Button>
        </Flex>
      }
    >
      <p>{texts?.text}</p>
    </Modal>
  );
}
