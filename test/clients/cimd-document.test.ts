// Client metadata document rules of the Client ID Metadata Document draft (SPEC 4.2).
import { describe, expect, it } from 'vitest';
import { parseCimdDocument } from '../../src/clients/cimd/document.js';
import { CimdError } from '../../src/clients/cimd/types.js';

const CLIENT_ID = 'https://app.example.com/oauth/client.json';
const SOURCE = { clientId: CLIENT_ID, host: 'app.example.com' };

function doc(overrides: Record<string, unknown> = {}): string {
  return JSON.stringify({
    client_id: CLIENT_ID,
    client_name: 'Example CLI',
    redirect_uris: ['https://app.example.com/callback'],
    ...overrides,
  });
}

function refusal(body: string): CimdError {
  try {
    parseCimdDocument(body, SOURCE);
  } catch (error) {
    if (error instanceof CimdError) return error;
    throw error;
  }
  throw new Error('expected the document to be refused');
}

describe('CIMD document', () => {
  it('accepts a minimal public-client document and defaults the auth method to none', () => {
    expect(parseCimdDocument(doc({ scope: 'openid profile' }), SOURCE)).toEqual({
      clientId: CLIENT_ID,
      host: 'app.example.com',
      clientName: 'Example CLI',
      redirectUris: ['https://app.example.com/callback'],
      tokenEndpointAuthMethod: 'none',
      scope: 'openid profile',
    });
  });

  it('treats client_name and scope as optional', () => {
    const parsed = parseCimdDocument(JSON.stringify({ client_id: CLIENT_ID, redirect_uris: ['http://127.0.0.1/cb'] }), SOURCE);
    expect(parsed.clientName).toBeNull();
    expect(parsed.scope).toBeNull();
  });

  it('ignores members it does not know (documents valid under -00 and -02)', () => {
    const parsed = parseCimdDocument(
      doc({ client_uri: 'https://app.example.com/', logo_uri: 'https://app.example.com/logo.png', grant_types: ['authorization_code'] }),
      SOURCE,
    );
    expect(parsed.clientId).toBe(CLIENT_ID);
  });

  it('refuses a body that is not JSON or not an object', () => {
    expect(refusal('not json').reason).toBe('invalid_document');
    expect(refusal('[]').message).toMatch(/JSON object/);
    expect(refusal('null').message).toMatch(/JSON object/);
    expect(refusal('"x"').message).toMatch(/JSON object/);
  });

  it('refuses a document whose client_id differs from its URL', () => {
    expect(refusal(doc({ client_id: 'https://app.example.com/other.json' })).message).toMatch(/client_id .*does not equal/);
    // No normalisation: a differently spelled but equivalent URL is still a different client_id.
    expect(refusal(doc({ client_id: 'https://APP.example.com/oauth/client.json' })).message).toMatch(/client_id/);
    expect(refusal(doc({ client_id: undefined })).message).toMatch(/client_id is missing/);
  });

  it('refuses a missing, empty or malformed redirect_uris', () => {
    expect(refusal(doc({ redirect_uris: undefined })).message).toMatch(/redirect_uris must be a non-empty array/);
    expect(refusal(doc({ redirect_uris: [] })).message).toMatch(/redirect_uris must be a non-empty array/);
    expect(refusal(doc({ redirect_uris: 'https://app.example.com/cb' })).message).toMatch(/redirect_uris/);
    expect(refusal(doc({ redirect_uris: [42] })).message).toMatch(/redirect_uris\[0\] must be a string/);
    expect(refusal(doc({ redirect_uris: ['/callback'] })).message).toMatch(/redirect_uris\[0\] .*not an absolute URL/);
  });

  it('refuses a redirect_uri on another host', () => {
    const error = refusal(doc({ redirect_uris: ['https://app.example.com/cb', 'https://evil.example.net/cb'] }));
    expect(error.reason).toBe('invalid_document');
    expect(error.message).toMatch(/redirect_uris\[1\] .*document's host app\.example\.com/);
    expect(refusal(doc({ redirect_uris: ['https://sub.app.example.com/cb'] })).reason).toBe('invalid_document');
  });

  it('refuses plain http on the document host and https loopback that is not the document host', () => {
    expect(refusal(doc({ redirect_uris: ['http://app.example.com/cb'] })).reason).toBe('invalid_document');
    expect(refusal(doc({ redirect_uris: ['http://10.0.0.1/cb'] })).reason).toBe('invalid_document');
  });

  it('accepts loopback redirect_uris on any port', () => {
    const uris = ['http://127.0.0.1/cb', 'http://127.0.0.1:53682/callback', 'http://[::1]:8080/cb', 'http://localhost:3000/oauth'];
    expect(parseCimdDocument(doc({ redirect_uris: uris }), SOURCE).redirectUris).toEqual(uris);
  });

  it('refuses redirect_uris with a fragment, userinfo or characters that parse differently', () => {
    expect(refusal(doc({ redirect_uris: ['https://app.example.com/cb#x'] })).message).toMatch(/fragment/);
    expect(refusal(doc({ redirect_uris: ['https://evil.test@app.example.com/cb'] })).message).toMatch(/username or password/);
    expect(refusal(doc({ redirect_uris: ['https://app.example.com\\@evil.test/cb'] })).message).toMatch(/not allowed in a URL/);
  });

  it('refuses shared-secret token endpoint auth methods', () => {
    for (const method of ['client_secret_post', 'client_secret_basic', 'client_secret_jwt']) {
      const error = refusal(doc({ token_endpoint_auth_method: method }));
      expect(error.reason).toBe('invalid_document');
      expect(error.message).toMatch(new RegExp(`token_endpoint_auth_method must not be ${method}`));
    }
    expect(refusal(doc({ token_endpoint_auth_method: 7 })).message).toMatch(/token_endpoint_auth_method/);
  });

  it('keeps a non-shared-secret auth method', () => {
    expect(parseCimdDocument(doc({ token_endpoint_auth_method: 'private_key_jwt' }), SOURCE).tokenEndpointAuthMethod).toBe(
      'private_key_jwt',
    );
  });

  it('refuses client_secret and client_secret_expires_at members', () => {
    expect(refusal(doc({ client_secret: 's3cret' })).message).toMatch(/client_secret must not be present/);
    expect(refusal(doc({ client_secret_expires_at: 0 })).message).toMatch(/client_secret_expires_at must not be present/);
  });

  it('refuses non-string client_name and scope', () => {
    expect(refusal(doc({ client_name: ['x'] })).message).toMatch(/client_name must be a string/);
    expect(refusal(doc({ scope: ['openid'] })).message).toMatch(/scope must be a string/);
  });
});
