import { ResultSchema } from '@modelcontextprotocol/core';
import type {
  Server,
  RequestOptions,
  Notification,
  NotificationOptions,
  Request,
  Result,
} from '@modelcontextprotocol/server';
import type { Client } from '@modelcontextprotocol/client';
import { sentDirectly } from '../fast-path/direct-requests.js';

/**
 * Requests and notifications the proxy passes on as they came, whatever their method. The SDK's typed
 * API (Client, Server) accepts only the methods its side may send, by their schemas; a proxy forwards
 * methods it need not know, with fields those schemas would drop, so it talks to the SDK's protocol
 * layer underneath, here and nowhere else.
 */
interface Peer {
  request(request: Request, schema: typeof ResultSchema, options?: RequestOptions): Promise<Result>;
  notification(notification: Notification, options?: NotificationOptions): Promise<void>;
}

/** A request with any method; its result comes back as the other side sent it (unknown fields kept). */
export function sendRawRequest(
  peer: Client | Server,
  request: { method: string; params?: Record<string, unknown> },
  options?: RequestOptions,
): Promise<Result> {
  return sentDirectly(peer, request, options) ?? (peer as Peer).request(request as Request, ResultSchema, options);
}

/** A notification with any method. */
export function sendRawNotification(
  peer: Client | Server,
  notification: { method: string; params?: Record<string, unknown> },
  options?: NotificationOptions,
): Promise<void> {
  return (peer as Peer).notification(notification as Notification, options);
}
