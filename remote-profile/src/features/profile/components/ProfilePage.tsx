import { lazy, Suspense, useEffect, useRef } from 'react';
import { Button, Descriptions, Spin, Typography, WaitDialog } from 'shared-ui';
import { useAuth } from 'shared-auth';
import { useProfileEditor } from '../hooks/useProfileEditor.js';
import { CountryLabel } from './CountryLabel.js';

const loadEditForm = () => import('./ProfileEditForm.js');
const ProfileEditForm = lazy(loadEditForm);

export function ProfilePage() {
  const { flagBaseUrl } = useAuth();
  const { profile, status, error, canEdit, loaded, edit, cancel, save } = useProfileEditor();

  // Once the page is shown, fetch the edit form in the background so that Edit opens at once.
  useEffect(() => {
    if (!canEdit) return;
    const idle = window.requestIdleCallback ?? ((callback: () => void) => window.setTimeout(callback, 200));
    idle(() => void loadEditForm());
  }, [canEdit]);

  // Back in the view after Cancel or a save, keyboard focus returns to where the editing began (the button is
  // gone while editing, and the focus would otherwise fall back to the start of the document).
  const editButton = useRef<HTMLButtonElement>(null);
  const previousStatus = useRef(status);
  useEffect(() => {
    if (status === 'viewing' && previousStatus.current !== 'viewing') editButton.current?.focus();
    previousStatus.current = status;
  }, [status]);

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
            <Button ref={editButton} type="primary" onClick={edit} style={{ marginTop: 24 }}>
              Edit My Profile
            </Button>
          ) : null}
        </>
      ) : (
        <Suspense fallback={<Spin aria-label="Loading the form" />}>
          <ProfileEditForm
            profile={profile}
            error={error}
            flagBaseUrl={flagBaseUrl}
            onSave={(values) => void save(values)}
            onCancel={cancel}
          />
        </Suspense>
      )}
    </section>
  );
}
