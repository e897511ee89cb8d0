import { useMemo, useState, type Ref } from 'react';
import { Button, Flex, Typography } from 'shared-ui';
import { Form, Input } from 'shared-ui/forms';
import {
  canSavePasswordChange,
  CONFIRM_PASSWORD_MISMATCH_MESSAGE,
  CURRENT_PASSWORD_REQUIRED_MESSAGE,
  passwordLength,
  passwordRuleResults,
  type PasswordChangeFields,
} from 'shared-auth';
import { useRulesAnnouncement } from '../hooks/useRulesAnnouncement.js';
import { PasswordRulesChecklist } from './PasswordRulesChecklist.js';
import { visuallyHidden } from './visuallyHidden.js';

const IDS = {
  current: 'password-current',
  currentError: 'password-current-error',
  next: 'password-new',
  rules: 'password-new-rules',
  confirm: 'password-confirm',
  confirmError: 'password-confirm-error',
} as const;

interface ChangePasswordFormProps {
  email: string;
  onCancel: () => void;
  onSave: (fields: PasswordChangeFields) => void;
  /** The Save button, for the page to return the focus to it after a dialog it opened. */
  saveRef?: Ref<HTMLButtonElement>;
}

/** The Change view's form: current, new and confirm, the live rules checklist, Cancel and Save. */
export function ChangePasswordForm({ email, onCancel, onSave, saveRef }: ChangePasswordFormProps) {
  const [fields, setFields] = useState<PasswordChangeFields>({
    currentPassword: '',
    newPassword: '',
    confirmPassword: '',
  });
  const [blurred, setBlurred] = useState({ current: false, confirm: false });
  const { currentPassword, newPassword, confirmPassword } = fields;

  const results = useMemo(
    () => passwordRuleResults({ password: newPassword, email, currentPassword }),
    [newPassword, email, currentPassword],
  );
  const announcement = useRulesAnnouncement(results);
  const canSave = canSavePasswordChange(fields, email);

  // Say the current password is missing once the user left it empty or went on to the other fields.
  const currentMissing =
    currentPassword === '' && (blurred.current || newPassword !== '' || confirmPassword !== '');
  // Say the confirmation differs once it is as long as the new password, or the user left the field.
  const confirmDiffers =
    confirmPassword !== '' &&
    confirmPassword !== newPassword &&
    (blurred.confirm || passwordLength(confirmPassword) >= passwordLength(newPassword));

  const set = (name: keyof PasswordChangeFields) => (event: { target: { value: string } }) =>
    setFields((previous) => ({ ...previous, [name]: event.target.value }));

  return (
    <Form
      layout="vertical"
      requiredMark={false}
      style={{ maxWidth: 480 }}
      onFinish={() => {
        if (canSave) onSave(fields);
      }}
    >
      <Typography.Paragraph>
        You are changing your password for: <strong>{email}</strong>
      </Typography.Paragraph>
      {/* Lets password managers file the new password under the right account. */}
      <input type="text" name="username" autoComplete="username" value={email} readOnly hidden />

      <Form.Item
        label="Current Password"
        htmlFor={IDS.current}
        validateStatus={currentMissing ? 'error' : undefined}
        help={
          currentMissing ? <span id={IDS.currentError}>{CURRENT_PASSWORD_REQUIRED_MESSAGE}</span> : undefined
        }
      >
        <Input.Password
          id={IDS.current}
          name="current-password"
          autoComplete="current-password"
          autoFocus
          aria-required="true"
          aria-invalid={currentMissing}
          aria-describedby={currentMissing ? IDS.currentError : undefined}
          value={currentPassword}
          onChange={set('currentPassword')}
          onBlur={() => setBlurred((previous) => ({ ...previous, current: true }))}
        />
      </Form.Item>

      <Form.Item
        label="New Password"
        htmlFor={IDS.next}
        extra={<PasswordRulesChecklist id={IDS.rules} results={results} started={newPassword !== ''} />}
      >
        <Input.Password
          id={IDS.next}
          name="new-password"
          autoComplete="new-password"
          aria-required="true"
          aria-describedby={IDS.rules}
          value={newPassword}
          onChange={set('newPassword')}
        />
      </Form.Item>
      <div role="status" aria-live="polite" aria-atomic="true" style={visuallyHidden}>
        {announcement}
      </div>

      <Form.Item
        label="Confirm Password"
        htmlFor={IDS.confirm}
        validateStatus={confirmDiffers ? 'error' : undefined}
        help={
          confirmDiffers ? <span id={IDS.confirmError}>{CONFIRM_PASSWORD_MISMATCH_MESSAGE}</span> : undefined
        }
      >
        <Input.Password
          id={IDS.confirm}
          name="confirm-password"
          autoComplete="new-password"
          aria-required="true"
          aria-invalid={confirmDiffers}
          aria-describedby={confirmDiffers ? IDS.confirmError : undefined}
          value={confirmPassword}
          onChange={set('confirmPassword')}
          onBlur={() => setBlurred((previous) => ({ ...previous, confirm: true }))}
        />
      </Form.Item>

      <Flex gap={12}>
        <Button onClick={onCancel}>Cancel</Button>
        <Button ref={saveRef} type="primary" htmlType="submit" disabled={!canSave}>
          Save
        </Button>
      </Flex>
    </Form>
  );
}
