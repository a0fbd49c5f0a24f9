/**
 * How many connections the broker serves, in all and per client IP, as Kafka's `ConnectionQuotas`
 * (SocketServer.scala) bounds them:
 *
 * - `max.connections`: at the limit Kafka's acceptor blocks until a connection closes; the new
 *   ones wait in the kernel's accept queue. Node cannot stop accepting, so the accepted socket
 *   waits here unread, in arrival order, and is served when a slot frees. As many wait as a
 *   listen backlog holds (Node's default, 511); beyond that a new connection is closed, as the
 *   kernel drops what its full backlog cannot take.
 * - `max.connections.per.ip` / `max.connections.per.ip.overrides`: a connection from an IP that
 *   has its limit already is closed at once (TooManyConnectionsException). As in Kafka, this is
 *   checked when the connection gets its slot.
 */
import type { Socket } from 'node:net';
import { normalizeIp, type BrokerConfig } from './config.js';
import type { Logger } from './logger.js';

/** Sockets waiting for a `max.connections` slot: what a listen backlog of Node's default size holds. */
export const MAX_WAITING_CONNECTIONS = 511;

export class ConnectionQuotas {
  private readonly perIp = new Map<string, number>();
  private total = 0;
  private readonly waiting: Socket[] = [];

  constructor(
    private readonly config: Pick<BrokerConfig, 'maxConnections' | 'maxConnectionsPerIp' | 'maxConnectionsPerIpOverrides'>,
    private readonly logger: Logger,
    /** Serves an admitted socket; `ip` is what `released` is called with when it closes. */
    private readonly serve: (socket: Socket, ip: string) => void,
  ) {}

  /** Connections served now. */
  get count(): number {
    return this.total;
  }

  /** Accepted sockets waiting for a slot. */
  get waitingCount(): number {
    return this.waiting.length;
  }

  /** A newly accepted socket: served, left waiting for a slot, or closed. */
  accept(socket: Socket): void {
    if (this.total < this.config.maxConnections) {
      this.admit(socket);
    } else if (this.waiting.length < MAX_WAITING_CONNECTIONS) {
      this.waiting.push(socket);
    } else {
      this.logger.warnThrottled('max.connections', `closing a new connection from ${socket.remoteAddress ?? '?'}: ${this.total} connections (max.connections) and ${this.waiting.length} waiting`);
      socket.destroy();
    }
  }

  /** A served connection from `ip` closed: its slot goes to the longest-waiting socket. */
  released(ip: string): void {
    const n = this.perIp.get(ip) ?? 0;
    if (n <= 1) this.perIp.delete(ip);
    else this.perIp.set(ip, n - 1);
    this.total--;
    while (this.total < this.config.maxConnections && this.waiting.length > 0) {
      const next = this.waiting.shift()!;
      // a socket that waited is not read, so it cannot know its client left; serving it finds out
      if (!next.destroyed) this.admit(next);
    }
  }

  /** Closes the waiting sockets (the broker shuts down). */
  close(): void {
    for (const s of this.waiting.splice(0)) s.destroy();
  }

  private admit(socket: Socket): void {
    const ip = normalizeIp(socket.remoteAddress ?? '');
    const n = this.perIp.get(ip) ?? 0;
    const max = this.config.maxConnectionsPerIpOverrides.get(ip) ?? this.config.maxConnectionsPerIp;
    if (n >= max) {
      this.logger.warnThrottled(`max.connections.per.ip:${ip}`, `closing a new connection from ${ip}: it has ${n} (max.connections.per.ip ${max})`);
      socket.destroy();
      return;
    }
    this.perIp.set(ip, n + 1);
    this.total++;
    this.serve(socket, ip);
  }
}
