/**
 * vitest global setup (once per run, every project): what each test app would otherwise make again. A pool of RSA
 * signing keys (test apps take their key ring's keys from it instead of generating them: key-material.ts) and a
 * migrated SQLite file (a test app's data folder starts as a copy of it: sqlite-template.ts). No vitest import
 * here beyond types: it runs outside the test workers.
 */
import { generateKeyPair } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { JWK } from 'jose';
import type { TestProject } from 'vitest/node';
import { kidOf } from '../../src/keys/material.js';
import { writeSqliteTemplate } from './sqlite-template.js';

const generateRsa = promisify(generateKeyPair);

/** Enough that no ring of a test holds a key twice (a ring keeps at most a few keys at once). */
const SIGNING_KEY_POOL_SIZE = 12;

/** What the global setup hands every test file (vitest's provide/inject; key-material.ts hands it out). */
export interface TestKeyMaterial {
  /** RSA 2048 private JWKs (JSON) and their kids (RFC 7638 thumbprints), as the key ring stores them. */
  signingKeys: { kid: string; material: string }[];
}

async function signingKey(): Promise<{ kid: string; material: string }> {
  const { privateKey } = await generateRsa('rsa', { modulusLength: 2048 });
  const jwk = privateKey.export({ format: 'jwk' }) as JWK;
  return { kid: await kidOf(jwk), material: JSON.stringify(jwk) };
}

export default async function setup(project: TestProject): Promise<() => void> {
  const folder = mkdtempSync(path.join(tmpdir(), 'portal-test-fixtures-'));
  const keys: TestKeyMaterial = {
    signingKeys: await Promise.all(Array.from({ length: SIGNING_KEY_POOL_SIZE }, signingKey)),
  };
  project.provide('keyMaterial', keys);
  project.provide('sqliteTemplate', writeSqliteTemplate(folder));
  return () => rmSync(folder, { recursive: true, force: true });
}
