// RFC 8707 and SPEC 4.2: `resource` is required and must be this origin.
import type { Site } from '../../../sites/site.js';
import { type RawParams, multiple } from '../../parameters.js';
import { checkResource } from '../../resource.js';

export function checkResourceParameter(params: RawParams, site: Site): string {
  return checkResource(multiple(params, 'resource'), site.origin);
}
