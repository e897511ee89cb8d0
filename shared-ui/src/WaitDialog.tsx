import { Modal, Spin } from 'antd';

export interface WaitDialogProps {
  open: boolean;
  title: string;
  description?: string;
}

/** A modal the user cannot dismiss while the portal loads or saves; announced as a busy dialog. */
export function WaitDialog({ open, title, description }: WaitDialogProps) {
  return (
    <Modal
      open={open}
      title={title}
      closable={false}
      mask={{ closable: false }}
      keyboard={false}
      footer={null}
      centered
      width={360}
      destroyOnHidden
    >
      <div aria-busy="true" style={{ display: 'flex', alignItems: 'center', gap: 16 }}>
        <Spin />
        {description ? <p style={{ margin: 0 }}>{description}</p> : null}
      </div>
    </Modal>
  );
}
