// A per-address budget for a route, spent before the handler runs (sign-in submissions, registration).
import type { FastifyRequest } from 'fastify';
import type { Budget, Throttle } from '../throttle/throttle.js';

export function addressBudget(throttle: Throttle, budget: Budget): (request: FastifyRequest) => Promise<void> {
  return async (request) => {
    await throttle.take(budget, request.ip);
  };
}
