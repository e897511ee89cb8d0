import { Button, Flex, Modal } from 'shared-ui';
import type { ConfirmDialog as Dialog } from '../model/factorsReducer.js';
import { DIALOGS } from './texts.js';

interface ConfirmDialogProps {
  dialog: Dialog;
  onCancel: () => void;
  onConfirm: () => void;
}

/** Cancel / Confirm before turning a factor off or removing it. */
export function ConfirmDialog({ dialog, onCancel, onConfirm }: ConfirmDialogProps) {
  const texts = dialog ? DIALOGS[dialog.kind][dialog.factor] : undefined;
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
