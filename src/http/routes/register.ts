// The registration endpoint (SPEC 4.2, CONTRACT 5): vendor integrations only.
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { PATHS } from '../../oauth/discovery.js';
import { handleRegistration } from '../../oauth/registration.js';
import { SUPPORTED_GRANT_TYPES } from '../../oauth/token/token-endpoint.js';
import { addressBudget } from '../address-budget.js';
import type { Services } from '../../services.js';

const registrationRequest = z.looseObject({
  client_name: z.unknown().describe('must name a pre-registered vendor integration'),
  redirect_uris: z.unknown().optional(),
});
const registrationResponse = z.object({
  client_id: z.string(),
  client_name: z.string(),
  redirect_uris: z.array(z.string()),
  token_endpoint_auth_method: z.string(),
  grant_types: z.array(z.string()),
  response_types: z.array(z.string()),
  scope: z.string(),
});

export function registerRegistrationRoutes(app: FastifyInstance, services: Services): void {
  app.post(
    PATHS.registration,
    {
      schema: {
        summary: 'Vendor client registration (not open dynamic registration)',
        tags: ['oauth'],
        consumes: ['application/json'],
        body: registrationRequest,
        response: { 201: registrationResponse, '4xx': z.object({ error: z.string(), error_description: z.string() }) },
      },
      config: { kind: 'oauth' },
      onRequest: addressBudget(services.throttle, {
        name: 'registration',
        limit: services.config.platform.limits.oauth_rate_per_minute,
        windowSeconds: 60,
      }),
      // The schema documents the body; the core judges it, so a missing client_name or a JSON array is
      // RFC 7591 `invalid_client_metadata`, not the generic `invalid_request` of a failed validation.
      attachValidation: true,
    },
    async (request, reply) => {
      const body = handleRegistration(services.config.platform.vendors, request.body, SUPPORTED_GRANT_TYPES);
      return reply.code(201).header('cache-control', 'no-store').send(body);
    },
  );
}
