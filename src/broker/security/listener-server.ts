/**
 * The server of one listener. PLAINTEXT and SASL_PLAINTEXT: a net.Server whose sockets arrive
 * paused (the connection reads them through its own buffers, socket-reads.ts). SSL and SASL_SSL:
 * a tls.Server; a socket is handed on once its handshake completed (Kafka's SslTransportLayer
 * handshakes before any request is read), and read in stream mode. A failed handshake (plaintext
 * sent to a TLS port, an untrusted or missing client certificate with `ssl.client.auth=required`)
 * closes just that socket. With `requested`, a client without a certificate is ANONYMOUS but one
 * with an untrusted certificate fails (SslTransportLayerTest.testClientAuthenticationRequested*).
 */
import { createServer as createNetServer, type Server, type Socket } from 'node:net';
import { createServer as createTlsServer, type TLSSocket } from 'node:tls';
import type { Logger } from '../logger.js';
import { ANONYMOUS } from './connection-security.js';
import type { ListenerSecurity } from './config.js';
import { sslPrincipal } from './tls.js';

/** `accept(socket, principal)`: the principal the transport established (SSL), ANONYMOUS otherwise. */
export function createListenerServer(listener: ListenerSecurity, logger: Logger, accept: (socket: Socket, principal: string) => void): Server {
  const tls = listener.tls;
  if (tls === undefined) return createNetServer({ pauseOnConnect: true }, (socket) => accept(socket, ANONYMOUS));
  const server = createTlsServer(tls.options);
  server.on('secureConnection', (socket: TLSSocket) => {
    const cert = socket.getPeerCertificate();
    const presented = cert !== null && typeof cert === 'object' && Object.keys(cert).length > 0;
    if (presented && socket.authorizationError !== null && socket.authorizationError !== undefined) {
      logger.debug(`${listener.spec.name}: closing TLS connection from ${socket.remoteAddress ?? '?'}: untrusted client certificate (${String(socket.authorizationError)})`);
      socket.destroy();
      return;
    }
    // SASL_SSL: the principal is the SASL identity, never the certificate (DefaultKafkaPrincipalBuilder)
    const principal = listener.spec.protocol === 'SSL' ? sslPrincipal(socket, tls) : ANONYMOUS;
    if (principal === undefined) {
      logger.warn(`${listener.spec.name}: closing TLS connection from ${socket.remoteAddress ?? '?'}: no ssl.principal.mapping.rules rule applies to its certificate`);
      socket.destroy();
      return;
    }
    accept(socket, principal);
  });
  server.on('tlsClientError', (e, socket) => logger.debug(`${listener.spec.name}: TLS handshake with ${socket.remoteAddress ?? '?'} failed: ${e.message}`));
  return server;
}
