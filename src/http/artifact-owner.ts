import { randomUUID } from 'node:crypto';
import type { AuthOptions } from '../config/types.js';

/** The owner of what a principal's requests store when no session narrows it (modern requests, downloads). */
export const principalOwner = (principal: string): string => `token:${principal}`;

/**
 * Who owns the artifacts an HTTP session's calls store. By default the authenticated principal (a static token's
 * name or an OAuth subject), so every session of one user, on any replica, reads what another was given;
 * `artifactScope: session` keeps them to the session. Without authentication there is no principal, only the
 * "anonymous" every client is: each session then owns its own, or strangers would share.
 */
export function sessionOwner(
  auth: Pick<AuthOptions, 'artifactScope'>,
  principal: string,
  authenticated: boolean,
): string {
  if (auth.artifactScope !== 'session' && authenticated) return principalOwner(principal);
  return `session:${randomUUID()}`;
}
