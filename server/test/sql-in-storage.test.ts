// The persistence floor's guard: SQL is written only in src/storage/ (the stores) and src/db/ (the drivers and the
// migrations), and storage/ imports no domain, only the drivers and the crypto primitives below it.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../src', import.meta.url));

/** Every .ts file under `dir`, relative to src/. */
function sourcesOf(dir: string): string[] {
  return readdirSync(path.join(SRC, dir), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => path.relative(SRC, path.join(entry.parentPath, entry.name)).split(path.sep).join('/'));
}

/** The statements a store writes (upper case, as every SQL text in src/ is). */
const SQL = /\b(SELECT|INSERT INTO|UPDATE \w+ SET|DELETE FROM)\b/;

describe('the persistence floor', () => {
  it('keeps every SQL text in storage/ or db/', () => {
    const outside = sourcesOf('.')
      .filter((file) => !/^(storage|db)\//.test(file))
      .flatMap((file) =>
        readFileSync(path.join(SRC, file), 'utf8')
          .split('\n')
          .flatMap((line, index) => (SQL.test(line) ? [`${file}:${index + 1}: ${line.trim()}`] : [])),
      );
    expect(outside).toEqual([]);
  });

  it('lets storage/ import only the drivers (db/) and the crypto primitives (crypto/)', () => {
    const upward = sourcesOf('storage').flatMap((file) =>
      [...readFileSync(path.join(SRC, file), 'utf8').matchAll(/from '(\.\.\/[^']+)'/g)]
        .map((match) => match[1] ?? '')
        .filter((target) => !/^\.\.\/(db|crypto)\//.test(target))
        .map((target) => `${file} imports ${target}`),
    );
    expect(upward).toEqual([]);
  });
});
