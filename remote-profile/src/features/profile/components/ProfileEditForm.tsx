import { Alert, Button, Flex } from 'shared-ui';
import { Form, Input } from 'shared-ui/forms';
import type { ProfileFields } from '../model/profile.js';
import { CountrySelect } from './CountrySelect.js';

interface ProfileEditFormProps {
  profile: ProfileFields;
  error: string | undefined;
  flagBaseUrl: string;
  onSave: (values: ProfileFields) => void;
  onCancel: () => void;
}

/** Edit mode. Its own chunk: the form controls load when the user first edits, not with the page. */
export default function ProfileEditForm({
  profile,
  error,
  flagBaseUrl,
  onSave,
  onCancel,
}: ProfileEditFormProps) {
  return (
    <Form<ProfileFields>
      layout="vertical"
      initialValues={profile}
      onFinish={onSave}
      requiredMark={false}
      style={{ maxWidth: 480 }}
    >
      {error ? <Alert type="error" showIcon title={error} style={{ marginBottom: 16 }} /> : null}
      <Form.Item label="First Name" name="firstName" rules={[{ max: 50, message: 'At most 50 characters' }]}>
        {/* Edit mode starts in its first field: the Edit button that had the focus is gone. */}
        <Input autoComplete="given-name" maxLength={50} autoFocus />
      </Form.Item>
      <Form.Item label="Last Name" name="lastName" rules={[{ max: 50, message: 'At most 50 characters' }]}>
        <Input autoComplete="family-name" maxLength={50} />
      </Form.Item>
      <Form.Item label="Email" name="email">
        <Input disabled />
      </Form.Item>
      <Form.Item label="Country" name="country">
        <CountrySelect flagBaseUrl={flagBaseUrl} />
      </Form.Item>
      <Flex gap={12}>
        <Button onClick={onCancel}>Cancel</Button>
        <Button type="primary" htmlType="submit">
          Save
        </Button>
      </Flex>
    </Form>
  );
}
