import { findCountry } from 'shared-auth';

/** A country's flag and name. The flag is decorative: the name next to it says it all. */
export function CountryLabel({ code, flagBaseUrl }: { code: string; flagBaseUrl: string }) {
  const country = findCountry(code);
  if (!country) return <span>{code || '—'}</span>;
  return (
    <span style={{ display: 'inline-flex', alignItems: 'center', gap: 8 }}>
      <img
        src={`${flagBaseUrl}/${country.code.toLowerCase()}.svg`}
        alt=""
        width={20}
        height={15}
        loading="lazy"
        style={{ objectFit: 'cover', borderRadius: 2 }}
      />
      {country.name}
    </span>
  );
}
