/** Cancel / Confirm before turning a factor off or removing it, in the words of the factor's kind. */
import { Button, Flex, Modal } from 'shared-ui';
import type { ConfirmDialog as Dialog } from '../model/factorsReducer.js';
import { factorKind } from '../model/kinds/index.js';

interface ConfirmDialogProps {
  dialog: Dialog;
  onCancel: () => void;
  onConfirm: () => void;
}

function textsOf(dialog: NonNullable<Dialog>) {
  const { dialogs, turnOffRemovesText } = factorKind(dialog.factor).texts;
  const texts = dialogs[dialog.kind];
  return dialog.kind === 'turnOff' && dialog.turnOff === 'removes'
    ? { ...texts, text: turnOffRemovesText }
    : texts;
}

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
