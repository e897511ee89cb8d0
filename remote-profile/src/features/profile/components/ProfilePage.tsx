import { Alert, Button, Descriptions, Flex, Form, Input, Typography, WaitDialog } from 'shared-ui';
import { useAuth } from 'shared-auth';
import { useProfileEditor } from '../hooks/useProfileEditor.js';
import type { ProfileFields } from '../model/profile.js';
import { CountryLabel } from './CountryLabel.js';
import { CountrySelect } from './CountrySelect.js';

export function ProfilePage() {
  const { flagBaseUrl } = useAuth();
  const { profile, status, error, canEdit, loaded, edit, cancel, save } = useProfileEditor();

  return (
    <section aria-labelledby="profile-title" style={{ maxWidth: 720 }}>
      <Typography.Title id="profile-title" level={1} style={{ fontSize: 28 }}>
        My Profile
      </Typography.Title>
      <WaitDialog
        open={!loaded}
        title="Loading My Profile"
        description="Please wait a moment while we load your data"
      />
      <WaitDialog
        open={status === 'saving'}
        title="Saving"
        description="Please wait a moment while we save your changes"
      />

      {status === 'viewing' ? (
        <>
          <Descriptions
            column={1}
            bordered
            items={[
              { key: 'firstName', label: 'First Name', children: profile.firstName },
              { key: 'lastName', label: 'Last Name', children: profile.lastName },
              { key: 'email', label: 'Email', children: profile.email },
              {
                key: 'country',
                label: 'Country',
                children: <CountryLabel code={profile.country} flagBaseUrl={flagBaseUrl} />,
              },
            ]}
          />
          {canEdit ? (
            <Button type="primary" onClick={edit} style={{ marginTop: 24 }}>
              Edit My Profile
            </Button>
          ) : null}
        </>
      ) : (
        <Form<ProfileFields>
          layout="vertical"
          initialValues={profile}
          onFinish={(values) => void save(values)}
          requiredMark={false}
          style={{ maxWidth: 480 }}
        >
          {error ? <Alert type="error" showIcon title={error} style={{ marginBottom: 16 }} /> : null}
          <Form.Item
            label="First Name"
            name="firstName"
            rules={[{ max: 50, message: 'At most 50 characters' }]}
          >
            <Input autoComplete="given-name" maxLength={50} />
          </Form.Item>
          <Form.Item
            label="Last Name"
            name="lastName"
            rules={[{ max: 50, message: 'At most 50 characters' }]}
          >
            <Input autoComplete="family-name" maxLength={50} />
          </Form.Item>
          <Form.Item label="Email" name="email">
            <Input disabled />
          </Form.Item>
          <Form.Item label="Country" name="country">
            <CountrySelect flagBaseUrl={flagBaseUrl} />
          </Form.Item>
          <Flex gap={12}>
            <Button onClick={cancel}>Cancel</Button>
            <Button type="primary" htmlType="submit">
              Save
            </Button>
          </Flex>
        </Form>
      )}
    </section>
  );
}
