// Client ID URL rules of the Client ID Metadata Document draft (SPEC 4.2).
import { describe, expect, it } from 'vitest';
import { looksLikeCimdClientId, parseCimdClientIdUrl, quoteForMessage } from '../../src/clients/cimd/client-id-url.js';
import { CimdError } from '../../src/clients/cimd/types.js';

function refusal(clientId: string): CimdError {
  try {
    parseCimdClientIdUrl(clientId);
  } catch (error) {
    if (error instanceof CimdError) return error;
    throw error;
  }
  throw new Error(`expected ${clientId} to be refused`);
}

describe('CIMD client_id URL', () => {
  it('accepts an https URL with a path and returns its lowercased host', () => {
    const parsed = parseCimdClientIdUrl('https://App.Example.com:8443/oauth/client.json');
    expect(parsed.host).toBe('app.example.com');
    expect(parsed.raw).toBe('https://App.Example.com:8443/oauth/client.json');
    expect(parsed.url.port).toBe('8443');
  });

  it('accepts IP literal hosts written canonically', () => {
    expect(parseCimdClientIdUrl('https://127.0.0.1/c.json').host).toBe('127.0.0.1');
    expect(parseCimdClientIdUrl('https://[::1]:4443/c.json').host).toBe('[::1]');
  });

  it('refuses the http scheme', () => {
    const error = refusal('http://example.com/client.json');
    expect(error.reason).toBe('invalid_client_id_url');
    expect(error.message).toMatch(/https/);
  });

  it('refuses other schemes and non-URLs', () => {
    expect(refusal('ftp://example.com/client.json').reason).toBe('invalid_client_id_url');
    expect(refusal('my-client').reason).toBe('invalid_client_id_url');
    expect(refusal('').reason).toBe('invalid_client_id_url');
    expect(refusal('https://').reason).toBe('invalid_client_id_url');
  });

  it('refuses a URL without a path or with only /', () => {
    expect(refusal('https://example.com').message).toMatch(/path/);
    expect(refusal('https://example.com/').message).toMatch(/path/);
    expect(refusal('https://example.com:443/').message).toMatch(/path/);
  });

  it('refuses fragments, including an empty one', () => {
    expect(refusal('https://example.com/client.json#x').message).toMatch(/fragment/);
    expect(refusal('https://example.com/client.json#').message).toMatch(/fragment/);
  });

  it('refuses a query string', () => {
    expect(refusal('https://example.com/client.json?v=1').message).toMatch(/query/);
    expect(refusal('https://example.com/client.json?').message).toMatch(/query/);
  });

  it('refuses userinfo (username, password, or an empty one)', () => {
    expect(refusal('https://user@example.com/client.json').message).toMatch(/username or password/);
    expect(refusal('https://user:pw@example.com/client.json').message).toMatch(/username or password/);
    expect(refusal('https://@example.com/client.json').message).toMatch(/username or password/);
  });

  it('refuses dot segments that new URL would silently normalise away', () => {
    for (const id of [
      'https://example.com/./client.json',
      'https://example.com/a/../client.json',
      'https://example.com/client/..',
      'https://example.com/client/.',
      'https://example.com/a/%2e%2E/client.json',
      'https://example.com/a/.%2e/client.json',
      'https://example.com/%2e/client.json',
    ]) {
      expect(refusal(id).message, id).toMatch(/\. or \.\. segments/);
    }
  });

  it('accepts dots inside a segment', () => {
    expect(parseCimdClientIdUrl('https://example.com/.well-known/client...json').host).toBe('example.com');
  });

  it('refuses whitespace, backslashes and non-ASCII that URL parsing would rewrite', () => {
    expect(refusal('https://example.com/a\tb/client.json').reason).toBe('invalid_client_id_url');
    expect(refusal('https://example.com\\@evil.test/client.json').reason).toBe('invalid_client_id_url');
    expect(refusal(' https://example.com/client.json').reason).toBe('invalid_client_id_url');
    expect(refusal('https://exämple.com/client.json').reason).toBe('invalid_client_id_url');
  });

  it('refuses hosts written in a non-canonical form', () => {
    expect(refusal('https://127.1/client.json').message).toMatch(/canonical/);
    expect(refusal('https://ex%61mple.com/client.json').message).toMatch(/canonical/);
    expect(refusal('https://[0:0::1]/client.json').message).toMatch(/canonical/);
    expect(refusal('https://2130706433/client.json').message).toMatch(/canonical/);
  });

  it('refuses an overlong client_id', () => {
    expect(refusal(`https://example.com/${'a'.repeat(3000)}`).message).toMatch(/longer than/);
  });

  it('recognises the CIMD form by the https:// prefix only', () => {
    expect(looksLikeCimdClientId('https://example.com/client.json')).toBe(true);
    expect(looksLikeCimdClientId('http://example.com/client.json')).toBe(false);
    expect(looksLikeCimdClientId('vendor-zapier')).toBe(false);
  });

  it('quotes outside values so they are valid in error_description', () => {
    expect(quoteForMessage('a"b\\c\u00e9\n')).toBe("'a?b?c??'");
    expect(quoteForMessage('x'.repeat(200)).length).toBeLessThan(130);
  });
});
