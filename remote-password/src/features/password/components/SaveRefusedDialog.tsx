import { Button, Modal } from 'shared-ui';

/** A refused save (spec section 8): the server's text, then what to do, and a Close button. */
export function SaveRefusedDialog({
  refusal,
  onClose,
}: {
  refusal: string | undefined;
  onClose: () => void;
}) {
  return (
    <Modal
      open={refusal !== undefined}
      title="Changes could not be saved"
      onCancel={onClose}
      // One way out, named Close (no second, iconic close button with the same name).
      closable={false}
      footer={
        <Button type="primary" onClick={onClose}>
          Close
        </Button>
      }
      destroyOnHidden
    >
      <p>{refusal}</p>
      <p>Please make the necessary changes and try again</p>
    </Modal>
  );
}
