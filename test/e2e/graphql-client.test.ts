// End to end (issue 3 section 4; SPEC 4.3, 5.1): a token from the real authorization code flow driven by
// openid-client (discovery, PKCE S256, resource), then the member query sent with a GraphQL client library
// (graphql-request), at both demo sites and their variant's path.
import { ClientError, GraphQLClient, gql } from 'graphql-request';
import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DemoServer, startDemoServer } from '../helpers/demo-server.js';
import { DIALECTS, skipDialect } from '../helpers/dialects.js';
import { person } from '../helpers/person.js';

interface Case {
  site: 'academy' | 'studio';
  clientId: string;
  redirectUri: string;
  /** CONTRACT 3: the GraphQL path of the site's variant. */
  graphqlPath: string;
}

const CASES: Case[] = [
  { site: 'academy', clientId: 'academy-member-app', redirectUri: 'http://127.0.0.1:53123/callback', graphqlPath: '/member/graphql' },
  { site: 'studio', clientId: 'studio-member-app', redirectUri: 'http://localhost:41000/callback', graphqlPath: '/account/graphql' },
];

const ENROLLED_COURSES = gql`
  query Courses($first: Int!) {
    viewer {
      email
      enrolledCourses(first: $first) {
        totalCount
        nodes {
          slug
          expireDate
          hasLifetimeAccess
          lastWatchedLecture {
            lectureId
            positionSeconds
          }
        }
      }
    }
  }
`;

interface CoursesResult {
  viewer: {
    email: string;
    enrolledCourses: {
      totalCount: number;
      nodes: {
        slug: string;
        expireDate: string | null;
        hasLifetimeAccess: boolean;
        lastWatchedLecture: { lectureId: string; positionSeconds: number } | null;
      }[];
    };
  };
}

/** openid-client through discovery, PKCE and the code exchange with `resource`; returns the access token. */
async function accessToken(origin: string, c: Case, scope: string): Promise<string> {
  const config = await client.discovery(new URL(origin), c.clientId, undefined, client.None(), { execute: [client.allowInsecureRequests] });
  const verifier = client.randomPKCECodeVerifier();
  const state = client.randomState();
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: c.redirectUri,
    scope,
    code_challenge: await client.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    resource: origin,
    state,
  });
  const callback = await person('student').authorize(url.href);
  const tokens = await client.authorizationCodeGrant(
    config,
    callback,
    { pkceCodeVerifier: verifier, expectedState: state },
    { resource: origin },
  );
  expect(tokens.scope?.split(' ')).toContain('account:read');
  return tokens.access_token;
}

for (const dialect of DIALECTS) {
  describe.skipIf(skipDialect(dialect))(`a GraphQL client reads the member API with an openid-client token (${dialect})`, () => {
    let server: DemoServer;
    beforeAll(async () => {
      server = await startDemoServer(dialect);
    });
    afterAll(() => server?.close());

    for (const c of CASES) {
      it(`${c.site}: graphql-request reads viewer.enrolledCourses at ${c.graphqlPath} with the bearer token`, async () => {
        const origin = server[c.site];
        const token = await accessToken(origin, c, 'openid profile email account:read');
        const graphqlClient = new GraphQLClient(`${origin}${c.graphqlPath}`, { headers: { authorization: `Bearer ${token}` } });

        const data = await graphqlClient.request<CoursesResult>(ENROLLED_COURSES, { first: 20 });
        expect(data.viewer.email).toBe('student@demo.test');
        expect(data.viewer.enrolledCourses.totalCount).toBe(data.viewer.enrolledCourses.nodes.length);
        expect(data.viewer.enrolledCourses.nodes.length).toBeGreaterThan(0);
        for (const node of data.viewer.enrolledCourses.nodes) {
          expect(typeof node.slug).toBe('string');
          expect(typeof node.hasLifetimeAccess).toBe('boolean');
        }
        expect(
          data.viewer.enrolledCourses.nodes.some((n) => n.lastWatchedLecture !== null && n.lastWatchedLecture.positionSeconds > 0),
        ).toBe(true);

        // The library surfaces the API's refusals: a GraphQL error for first above 100, a 401 without the token.
        const tooMany = await graphqlClient.request(ENROLLED_COURSES, { first: 101 }).catch((error: unknown) => error);
        expect(tooMany).toBeInstanceOf(ClientError);
        expect((tooMany as ClientError).response.errors?.[0]?.message).toContain('100');
        const anonymous = await new GraphQLClient(`${origin}${c.graphqlPath}`)
          .request(ENROLLED_COURSES, { first: 1 })
          .catch((error: unknown) => error);
        expect(anonymous).toBeInstanceOf(ClientError);
        expect((anonymous as ClientError).response.status).toBe(401);
        expect((anonymous as ClientError).response.headers.get('www-authenticate')).toContain(
          `resource_metadata="${origin}/.well-known/oauth-protected-resource"`,
        );
      });
    }

    it('academy: graphql-request runs a variant A mutation with an account:write token', async () => {
      const c = CASES[0] as Case;
      const origin = server.academy;
      const token = await accessToken(origin, c, 'openid account:read account:write');
      const graphqlClient = new GraphQLClient(`${origin}${c.graphqlPath}`, { headers: { authorization: `Bearer ${token}` } });
      const data = await graphqlClient.request<{ markAllNotificationsRead: { unreadNotificationCount: number } }>(
        gql`
          mutation {
            markAllNotificationsRead {
              markedCount
              unreadNotificationCount
            }
          }
        `,
      );
      expect(data.markAllNotificationsRead.unreadNotificationCount).toBe(0);
    });
  });
}
