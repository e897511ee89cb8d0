/**
 * "Save your recovery codes": the new set, once. Copy, Download (a .txt with the account's email and the date) and
 * Print (only the codes, through a print stylesheet). It closes only after 'I have saved my recovery codes' is
 * ticked: Done is disabled, and Escape and the close button do nothing, until then. A chunk of its own: it loads
 * when a set is made, not with the page.
 */
import { useState } from 'react';
import { Button, Flex, Modal } from 'shared-ui';
import type { RecoveryCodesGenerated } from 'shared-auth';
import { CODES_FILE_NAME, codesFileText, codesHeading } from '../model/recoveryCodes.js';

/** The dialog's texts: here, not in texts.ts, so they load with the dialog's chunk. */
const TEXTS = {
  title: 'Save your recovery codes',
  intro:
    "Keep these codes somewhere safe, like a password manager or on paper. Each code works once. You won't see them again.",
  listLabel: 'Your recovery codes',
  copy: 'Copy',
  copied: 'Codes copied.',
  copyFailed: "Couldn't copy the codes. Download or print them instead.",
  download: 'Download',
  downloaded: 'Codes downloaded.',
  print: 'Print',
  saved: 'I have saved my recovery codes',
  done: 'Done',
} as const;

export interface SaveCodesDialogProps {
  generated: RecoveryCodesGenerated;
  email: string;
  saved: boolean;
  onSavedChange: (saved: boolean) => void;
  /** The dialog has closed (Done, or Escape / close once ticked), its animation over. */
  onDone: () => void;
}

const PRINT_CLASS = 'recovery-codes-print';
// While the dialog is open, printing shows the codes and nothing else of the page.
const PRINT_ONLY_CLASS = 'recovery-codes-print-only';
const PRINT_CSS = `.${PRINT_ONLY_CLASS}{display:none}@media print{body *{visibility:hidden!important}.${PRINT_CLASS},.${PRINT_CLASS} *{visibility:visible!important}.${PRINT_CLASS}{position:fixed;left:0;top:0}.${PRINT_ONLY_CLASS}{display:block}}`;

const CHECKBOX_ID = 'recovery-codes-saved';

export default function SaveCodesDialog({
  generated,
  email,
  saved,
  onSavedChange,
  onDone,
}: SaveCodesDialogProps) {
  const [open, setOpen] = useState(true);
  const [notice, setNotice] = useState('');
  const close = () => {
    if (saved) setOpen(false);
  };

  async function copy() {
    try {
      await navigator.clipboard.writeText(generated.codes.join('\n'));
      setNotice(TEXTS.copied);
    } catch {
      setNotice(TEXTS.copyFailed);
    }
  }

  function download() {
    const url = URL.createObjectURL(
      new Blob([codesFileText(email, generated)], { type: 'text/plain;charset=utf-8' }),
    );
    const link = document.createElement('a');
    link.href = url;
    link.download = CODES_FILE_NAME;
    document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(url), 0);
    setNotice(TEXTS.downloaded);
  }

  return (
    <Modal
      open={open}
      title={TEXTS.title}
      closable={saved}
      keyboard={saved}
      mask={{ closable: false }}
      onCancel={close}
      afterClose={onDone}
      destroyOnHidden
      footer={
        <Button type="primary" disabled={!saved} onClick={close}>
          {TEXTS.done}
        </Button>
      }
    >
      <style>{PRINT_CSS}</style>
      <p>{TEXTS.intro}</p>
      <div className={PRINT_CLASS}>
        {/* On the printed sheet only: whose codes, and when (the downloaded file's first lines). */}
        <div className={PRINT_ONLY_CLASS}>
          {codesHeading(email, generated).map((line) => (
            <p key={line}>{line}</p>
          ))}
        </div>
        <ul
          aria-label={TEXTS.listLabel}
          style={{
            fontFamily: 'ui-monospace, SFMono-Regular, Menlo, Consolas, monospace',
            fontSize: 16,
            listStyle: 'none',
            padding: 0,
            columns: 2,
          }}
        >
          {generated.codes.map((code) => (
            <li key={code} style={{ padding: '2px 0' }}>
              {code}
            </li>
          ))}
        </ul>
      </div>
      <Flex gap={8} wrap>
        <Button onClick={() => void copy()}>{TEXTS.copy}</Button>
        <Button onClick={download}>{TEXTS.download}</Button>
        <Button onClick={() => window.print()}>{TEXTS.print}</Button>
      </Flex>
      <p role="status" style={{ minHeight: 22, margin: '8px 0' }}>
        {notice}
      </p>
      <label htmlFor={CHECKBOX_ID} style={{ display: 'flex', gap: 8, alignItems: 'center' }}>
        <input
          id={CHECKBOX_ID}
          type="checkbox"
          checked={saved}
          onChange={(event) => onSavedChange(event.target.checked)}
        />
        {TEXTS.saved}
      </label>
    </Modal>
  );
}
