/**
 * A software passkey authenticator for tests: real ES256 credentials made with node:crypto, real `none` attestations
 * and real signed assertions (CBOR by @simplewebauthn/server's own encoder), with knobs an attacker turns: the
 * origin and RP ID it claims, the user-verified flag, the signature counter, the AAGUID, the challenge.
 */
import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import { isoCBOR } from '@simplewebauthn/server/helpers';

export interface CeremonyKnobs {
  /** The origin the browser names in clientDataJSON (default: the portal's). */
  origin?: string;
  /** The RP ID whose hash the authenticator data carries (default: localhost). */
  rpId?: string;
  /** The user-verified flag (default: true). */
  uv?: boolean;
  /** The signature counter to send (default: the authenticator's next one). */
  counter?: number;
  /** Another challenge than the options' (base64url). */
  challenge?: string;
  /** clientDataJSON's type (default: the ceremony's). */
  type?: string;
}

const b64url = (bytes: Uint8Array | Buffer) => Buffer.from(bytes).toString('base64url');

export class SoftwareAuthenticator {
  readonly credentialId: Buffer = randomBytes(16);
  private readonly privateKey: KeyObject;
  private readonly cosePublicKey: Uint8Array;
  /** The counter the next assertion sends (incremented on each; 0 keeps it at 0, as synced passkeys do). */
  counter: number;

  constructor(
    readonly options: {
      origin?: string;
      rpId?: string;
      aaguid?: string;
      counter?: number;
      userId?: string;
    } = {},
  ) {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    this.privateKey = privateKey;
    const jwk = publicKey.export({ format: 'jwk' });
    const cose = new Map<number, number | Uint8Array>([
      [1, 2],
      [3, -7],
      [-1, 1],
      [-2, new Uint8Array(Buffer.from(jwk.x ?? '', 'base64url'))],
      [-3, new Uint8Array(Buffer.from(jwk.y ?? '', 'base64url'))],
    ]);
    this.cosePublicKey = isoCBOR.encode(cose);
    this.counter = options.counter ?? 0;
  }

  get id(): string {
    return b64url(this.credentialId);
  }

  private origin(knobs: CeremonyKnobs): string {
    return knobs.origin ?? this.options.origin ?? 'http://localhost:3000';
  }

  private authData(knobs: CeremonyKnobs, counter: number, attested: boolean): Buffer {
    const rpIdHash = createHash('sha256')
      .update(knobs.rpId ?? this.options.rpId ?? 'localhost')
      .digest();
    // UP, UV, and AT when a credential is attested.
    const flags = 0x01 | ((knobs.uv ?? true) ? 0x04 : 0) | (attested ? 0x40 : 0);
    const counterBytes = Buffer.alloc(4);
    counterBytes.writeUInt32BE(counter);
    const parts: Buffer[] = [rpIdHash, Buffer.from([flags]), counterBytes];
    if (attested) {
      const aaguid = Buffer.from(
        (this.options.aaguid ?? '00000000-0000-0000-0000-000000000000').replace(/-/g, ''),
        'hex',
      );
      const length = Buffer.alloc(2);
      length.writeUInt16BE(this.credentialId.length);
      parts.push(aaguid, length, this.credentialId, Buffer.from(this.cosePublicKey));
    }
    return Buffer.concat(parts);
  }

  private clientData(type: string, challenge: string, knobs: CeremonyKnobs): Buffer {
    return Buffer.from(
      JSON.stringify({
        type: knobs.type ?? type,
        challenge: knobs.challenge ?? challenge,
        origin: this.origin(knobs),
        crossOrigin: false,
      }),
    );
  }

  /** The answer of navigator.credentials.create() to these options. */
  register(
    options: { challenge: string },
    knobs: CeremonyKnobs = {},
  ): Record<string, unknown> & { id: string } {
    const clientDataJSON = this.clientData('webauthn.create', options.challenge, knobs);
    const authData = this.authData(knobs, knobs.counter ?? this.counter, true);
    const attestationObject = isoCBOR.encode(
      new Map<string, unknown>([
        ['fmt', 'none'],
        ['attStmt', new Map()],
        ['authData', new Uint8Array(authData)],
      ]) as never,
    );
    return {
      id: this.id,
      rawId: this.id,
      type: 'public-key',
      response: {
        clientDataJSON: b64url(clientDataJSON),
        attestationObject: b64url(attestationObject),
        transports: ['internal', 'hybrid'],
      },
      clientExtensionResults: {},
      authenticatorAttachment: 'platform',
    };
  }

  /** The answer of navigator.credentials.get() to these options: signed with the credential's private key. */
  assert(
    options: { challenge: string },
    knobs: CeremonyKnobs = {},
  ): Record<string, unknown> & { id: string } {
    if (knobs.counter === undefined && this.counter > 0) this.counter += 1;
    const counter = knobs.counter ?? this.counter;
    const clientDataJSON = this.clientData('webauthn.get', options.challenge, knobs);
    const authData = this.authData(knobs, counter, false);
    const signature = sign(
      'sha256',
      Buffer.concat([authData, createHash('sha256').update(clientDataJSON).digest()]),
      this.privateKey,
    );
    return {
      id: this.id,
      rawId: this.id,
      type: 'public-key',
      response: {
        clientDataJSON: b64url(clientDataJSON),
        authenticatorData: b64url(authData),
        signature: b64url(signature),
        ...(this.options.userId ? { userHandle: b64url(Buffer.from(this.options.userId)) } : {}),
      },
      clientExtensionResults: {},
    };
  }
}
