import { Select } from 'shared-ui/forms';
import { COUNTRIES } from 'shared-auth';
import { CountryLabel } from './CountryLabel.js';

const OPTIONS = COUNTRIES.map((country) => ({ value: country.code, label: country.name }));

interface CountrySelectProps {
  id?: string;
  value?: string;
  onChange?: (code: string) => void;
  flagBaseUrl: string;
}

/** The country dropdown of the edit form: flag and name, searchable by name. */
export function CountrySelect({ id, value, onChange, flagBaseUrl }: CountrySelectProps) {
  return (
    <Select
      id={id}
      value={value}
      onChange={onChange}
      options={OPTIONS}
      showSearch={{ optionFilterProp: 'label' }}
      optionRender={(option) => <CountryLabel code={String(option.value)} flagBaseUrl={flagBaseUrl} />}
      labelRender={(option) => <CountryLabel code={String(option.value)} flagBaseUrl={flagBaseUrl} />}
      style={{ maxWidth: 360 }}
    />
  );
}
