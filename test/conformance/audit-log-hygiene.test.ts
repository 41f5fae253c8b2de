// Issue 2 audit log: "never a secret ... in it". A password typed into the e-mail field of the sign-in
// form must not reach the log; a real address is kept so operators can see who failed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DemoServer, startDemoServer } from '../helpers/demo-server.js';
import { DIALECTS, skipDialect } from '../helpers/dialects.js';
import { hiddenFields, Person } from '../helpers/person.js';

for (const dialect of DIALECTS) {
  describe.skipIf(skipDialect(dialect))(`audit log hygiene (${dialect})`, () => {
    let server: DemoServer;
    beforeAll(async () => {
      server = await startDemoServer(dialect);
    });
    afterAll(() => server?.close());

    async function failedSignIn(typedEmail: string): Promise<string> {
      const someone = new Person(typedEmail, 'wrong-password');
      const form = await someone.request(
        `${server.academy}/oauth/authorize?response_type=code&client_id=academy-member-app&redirect_uri=http://127.0.0.1:5000/callback&scope=openid&resource=${encodeURIComponent(server.academy)}&code_challenge=E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM&code_challenge_method=S256`,
      );
      const res = await someone.request(`${server.academy}/oauth/sign-in`, {
        form: { ...hiddenFields(form.html), email: typedEmail, password: 'wrong-password' },
      });
      expect(res.status).toBe(401);
      const row = await server.store.db
        .selectFrom('audit_events')
        .select('detail')
        .where('kind', '=', 'sign_in.failed')
        .orderBy('id', 'desc')
        .executeTakeFirstOrThrow();
      return (JSON.parse(row.detail) as { email: string }).email;
    }

    it('does not record a password typed into the e-mail field of a failed sign-in', async () => {
      expect(await failedSignIn('correct horse battery staple')).toBe('(not an e-mail address)');
    });

    it('records the address of a failed sign-in when it looks like an e-mail address', async () => {
      expect(await failedSignIn('Student@Demo.test')).toBe('student@demo.test');
    });
  });
}
