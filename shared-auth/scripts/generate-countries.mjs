#!/usr/bin/env node
// Regenerates src/contract/countries.data.json from the countries-list dataset, keeping only what the portal
// uses (code, name, dial code). The full dataset (capitals, currencies, languages, native names) would cost the
// first page ~8 kB gzip more. A unit test fails when this file and the dataset drift apart: rerun this script.
import { writeFileSync } from 'node:fs';
import { countries } from 'countries-list';

// Ascension and Tristan da Cunha have no flag of their own in flag-icons, and are part of Saint Helena.
const WITHOUT_OWN_FLAG = new Set(['AC', 'TA']);

export function countryRows() {
  return Object.entries(countries)
    .filter(([code]) => !WITHOUT_OWN_FLAG.has(code))
    .map(([code, data]) => [code, data.name, `+${data.phone[0] ?? ''}`])
    .sort((a, b) => a[1].localeCompare(b[1], 'en'));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const file = new URL('../src/contract/countries.data.json', import.meta.url);
  writeFileSync(file, `${JSON.stringify(countryRows())}\n`);
  console.log(`wrote ${countryRows().length} countries to ${file.pathname}`);
}
