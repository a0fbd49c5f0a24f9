/**
 * One client connection: frames in, responses out, in request order.
 *
 * Kafka processes one request per connection at a time and answers in order (SocketServer mutes
 * the channel until the response is sent; kafka-python matches responses FIFO). Pipelined frames
 * queue here; reading pauses while the queue is long, or while all connections' queued frames reach
 * `queued.max.request.bytes`, so a fast client cannot make the broker buffer without bound.
 *
 * Answers the client does not read are bounded the same way: while the answers this connection
 * handed to its socket and the kernel has not taken reach
 * `kafkalite.queued.max.response.bytes.per.connection`, or all connections' reach
 * `kafkalite.queued.max.response.bytes` and this one has any, it takes no new request and is not
 * read (Kafka's muted channel) until the socket has written them all. A connection whose answers
 * go out is never held back by one whose answers do not. A connection with no complete request
 * and no answer written for `connections.max.idle.ms` is closed (Kafka's Selector idle expiry).
 *
 * A frame above `socket.request.max.bytes`, a request whose header or body cannot be parsed, or an
 * API or version this broker does not serve closes the connection, as in Kafka
 * (`SocketServer.parseRequestHeader`, InvalidReceiveException) — ApiVersions alone accepts any
 * version (KIP-511).
 *
 * The connection knows no API: before any answer leaves it calls the broker's one hook,
 * `heldAppends.writeAll()` (held-appends.ts), and a handler hands memory its answer no longer needs
 * back through `afterAnswer` (the Produce handler its request frame, Fetch its read buffers).
 */
import type { Socket } from 'node:net';
// a module binding, not the global: Node defines `performance` on globalThis as an accessor, which
// optimized code reads through a generic LoadGlobalIC and a getter call at every use (Node 20)
import { performance } from 'node:perf_hooks';
import { decodeMessageValue, encodeMessage } from '../protocol/codec.js';
import { ErrorCode } from '../protocol/error-codes.js';
import { FrameDecoder } from '../protocol/framing.js';
import { encodeResponse, encodeResponseFrame, readRequestHeader, type RequestHeaderValue } from '../protocol/header.js';
import type { Broker } from './broker.js';
import { NO_RESPONSE, type AnyApiHandler, type ConnectionState, type RequestContext } from './handler.js';
import { errorMessageOf } from './api-error.js';
import { startReads } from './socket-reads.js';
import type { QueuedBytes } from './queued-bytes.js';
import { clientThrottles, throttleTimeOf } from './quotas/throttled-channel.js';
import { storageErrorFrame } from './log-dir-failure.js';
import { unsupportedVersionResponse } from './unsupported-version.js';
import type { ListenerSecurity } from './security/config.js';
import { SaslSession } from './security/sasl-session.js';
import { handleRawSaslToken } from './security/raw-token.js';
import { afterFailureDelay } from './security/failure-delay.js';
import { ApiKey } from '../protocol/api-keys.js';
import { PhaseIndex } from './request-metrics.js';
import { doubleArray, objectArray } from '../v8/elements-kind.js';
import { KeptList } from '../v8/kept-list.js';
import { LatestInstance } from '../v8/map-anchors.js';

/**
 * Reading pauses while this many frames, or this many bytes of them, wait (Kafka mutes after one):
 * without the byte bound, 64 pipelined frames at socket.request.max.bytes would hold 6.4 GB.
 */
const MAX_QUEUED_FRAMES = 64;
const MAX_QUEUED_BYTES = 16 * 1024 * 1024;
/**
 * Answers to pipelined requests are held until the frames already received are all handled, then
 * go out in one write: on loopback every send syscall also runs the receiver's TCP input and wakes
 * it, which costs more than handling a 16 KiB Produce (bench/README.md). Held answers go out
 * at once past this many bytes (Fetch answers), and before any request that waits (long polls).
 *
 * Otherwise they go out once the event loop has run every read callback of its turn (setImmediate),
 * after the broker's held Produce appends are written (held-appends.ts): the appends of every
 * connection served in that turn share one `pwritev` per segment.
 */
const MAX_HELD_ANSWER_BYTES = 256 * 1024;
/**
 * Reads that are not straight into a large frame land in a per-connection chunk of this size, used
 * from its start to its end by successive reads (frames inside it are views, as Node's own chunks
 * would be); a new chunk is started when less than READ_MIN_BYTES is left.
 */
const READ_CHUNK_BYTES = 64 * 1024;
const READ_MIN_BYTES = 16 * 1024;
/**
 * A connection whose reads fill their whole target (the socket held more than the chunk had room
 * for: pipelined Produce requests) doubles its next chunks up to this size, and starts a new one
 * when less than a quarter is left; back to 64 KiB once a large frame begins (framing.ts assembles
 * it in place, and its first bytes read here are copied into it). With 64 KiB chunks a stream of
 * five 16 KiB requests in flight took 1.6x the reads (and read callbacks) of the loopback+disk
 * floor, which reads into 1 MiB (`strace -c`, bench/README.md); idle and request-at-a-time
 * connections keep 64 KiB.
 */
const READ_CHUNK_MAX_BYTES = 256 * 1024;
/**
 * Read chunks are reused once every frame that is a view of them was given back (`recycleFrame`:
 * the Produce handler gives back its frame once the answer is out) and the decoder holds none of
 * their bytes. A fresh 64 KiB chunk per 64 KiB read is external memory that only a collection
 * frees: with few young objects per request (no promise per request) scavenges became rare, and
 * V8 freed the chunks with mark-compacts instead, 40 per 512 MiB of 16 KiB Produce requests, a
 * quarter of the broker's CPU in marking and sweeping (`perf`, bench/README.md); reused, none.
 * Chunks with frames never given back (other APIs may keep views of their request) are left to the
 * garbage collector, as before; at most this many bytes of them wait to be reused (four 64 KiB
 * chunks, one of 256 KiB: a connection that grew its chunks keeps at most 512 KiB in all).
 */
const MAX_RETIRED_BYTES = 4 * READ_CHUNK_BYTES;
/**
 * Held answers up to this many bytes in all go to the socket as one buffer, copied together, in one
 * `write`: a corked socket with one `write` per chunk costs Node's Writable its buffered-write
 * list, a `writev` wrapper and their allocations (about 1 KB per answer in a heap profile of 100 B
 * Produce round trips), more than copying a few hundred bytes. Larger ones (Fetch answers) are
 * written chunk by chunk, uncopied.
 */
const COPY_ANSWERS_UP_TO = 16 * 1024;
/** Flush records kept for reuse: one per answer write in flight beyond this is made and dropped. */
const MAX_SPARE_FLUSHES = 4;
/** Held-answer records kept for reuse once their answers were written. */
const MAX_SPARE_ANSWERS = 16;

export class Connection {
  private readonly decoder: FrameDecoder;
  // The lists below are created in the elements kind they keep (v8/elements-kind.ts) and emptied
  // without giving back their memory (v8/kept-list.ts), never replaced: a fresh `[]` per connection
  // deoptimized the read and answer path ('not a Smi') with each new client, and arrays made or
  // emptied per read, request or flush were a new element store each time.
  /** Frames one read completed (the decoder appends them here; emptied once queued). */
  private readonly readFrames = new KeptList<Buffer>(objectArray(), NO_BYTES);
  private readonly queue = new KeptList<Buffer>(objectArray(), NO_BYTES);
  /** When each queued frame was complete (performance.now()), for the broker's request metrics. */
  private readonly queueArrivals = new KeptList<number>(doubleArray(), 0);
  private queuedBytes = 0;
  private processing = false;
  /** What drainReady returned last is a handler's promise (its request is in progress), not a mute. */
  private waitingForHandler = false;
  /** The byte stream cannot be framed any further: close once the queued requests are answered. */
  private closeWhenDrained = false;
  private closed = false;
  private readonly state: ConnectionState;
  readonly remote: string;
  /** Resolves when the request in progress (if any) has been answered. */
  private idle: Promise<void> = Promise.resolve();
  /** Encoded answers not yet handed to the socket (see MAX_HELD_ANSWER_BYTES). */
  private readonly held = new KeptList<Buffer>(objectArray(), NO_BYTES);
  private heldBytes = 0;
  /**
   * `afterAnswer` callbacks of the held answers (and of requests answered with nothing): run once
   * the held appends are written and the socket has taken the answers, never before, since a
   * Produce frame given back to the pool may still be the bytes of a held append.
   */
  private heldReleases = new KeptList<() => void>(objectArray(), noop);
  /**
   * `afterAnswer` callbacks of the request being handled (one at a time per connection), until its
   * answer takes them (write) or it is answered with nothing (answered): one list and one
   * `afterAnswer` for every request, not an array and a closure each.
   */
  private readonly requestReleases = new KeptList<() => void>(objectArray(), noop);
  private readonly addRelease = (release: () => void): void => this.requestReleases.push(release);
  /** The header of the request being handled, read into one object (nothing keeps it past the request). */
  private readonly requestHeader: RequestHeaderValue = { apiKey: 0, apiVersion: 0, correlationId: 0, clientId: '', headerVersion: 1, bodyOffset: 0 };
  /**
   * Per held answer, in order: how many of `held` are its chunks, and its KAFKA_STORAGE_ERROR form
   * when it was computed while Produce appends were held (sent instead if their write fails).
   */
  private heldAnswers = new KeptList<HeldAnswer | undefined>(objectArray(), undefined);
  /** Records of written answers, for the next ones (MAX_SPARE_ANSWERS). */
  private readonly spareAnswers = new KeptList<HeldAnswer | undefined>(objectArray(), undefined);
  /**
   * Flushes whose answers the socket wrote, kept for the next flushes (their lists and callback):
   * one flush record per answered turn was two arrays and a closure.
   */
  private readonly spareFlushes: SentFlush[] = objectArray();
  /** The last socket read took all the socket had (see drainReady's turn-end flush). */
  private lastReadDrained = false;
  /** A flushAnswers is scheduled for the end of this event-loop turn. */
  private flushScheduled = false;
  private readonly socket: Socket;
  /** The chunk non-direct reads go to, and how much of it earlier reads filled. */
  private readChunk: Buffer = NO_READ_CHUNK;
  /**
   * `readChunk.buffer`, kept: on Node 20 a typed array's `.buffer` is a call into C++ from optimized
   * code (`Builtin_TypedArrayPrototypeBuffer`), and the frame bookkeeping asked for it per frame.
   */
  private readChunkMemory: ArrayBufferLike = NO_READ_CHUNK.buffer;
  private readChunkUsed = 0;
  /** Size of the next fresh read chunk: READ_CHUNK_BYTES, doubled (up to READ_CHUNK_MAX_BYTES) by reads that fill their target. */
  private readChunkBytes = READ_CHUNK_BYTES;
  /** Frames that are views of `readChunk` and were not given back yet. */
  private readChunkFrames = 0;
  /** Earlier read chunks, with their frames not given back yet, oldest first (MAX_RETIRED_BYTES). */
  private readonly retiredChunks: { chunk: Buffer; memory: ArrayBufferLike; frames: number }[] = objectArray();
  /** The last read target was the rest of a frame being assembled (framing.ts directTarget). */
  private readingDirect = false;
  /** Answer bytes of this connection counted in `broker.queuedResponses` (its socket's writableLength when last looked at). */
  private countedAnswerBytes = 0;
  /** Set while drain() waits for the socket to write every answer (the channel is muted). */
  private answersWritten: (() => void) | undefined;
  /** When a complete request last arrived or the socket last wrote every answer (Date.now()). */
  private lastActive = Date.now();
  /** A request is being handled (a long poll, a rebalance): never idle then. */
  private inRequest = false;
  private readonly requests: QueuedBytes;
  private readonly responses: QueuedBytes;
  private readonly resumeReading = (): void => this.maybeResumeReading();
  /** Set while a quota throttle mutes the connection (quotas/throttled-channel.ts); resolves when it ends. */
  private throttled: Promise<void> | undefined;
  /** Ends the mute before its time (the connection closes): its timer cancelled, `throttled` resolved. */
  private endThrottle: (() => void) | undefined;

  constructor(
    private readonly broker: Broker,
    /** An accepted socket, paused (the server's pauseOnConnect), or a TLS socket after its handshake. */
    accepted: Socket,
    /** The listener it came in on, and the principal its transport established (security/). */
    listener: ListenerSecurity,
    principal: string,
  ) {
    const sasl = listener.sasl === undefined ? undefined : new SaslSession(listener.sasl, (user, mech) => broker.scramCredentials.get(user, mech));
    this.state = { principal, security: { listener, sasl } };
    this.remote = `${accepted.remoteAddress ?? '?'}:${accepted.remotePort ?? '?'}`;
    this.requests = broker.queuedRequests;
    this.responses = broker.queuedResponses;
    this.decoder = new FrameDecoder(broker.config.socketRequestMaxBytes, broker.framePool, broker.inPlaceFrames);
    this.applySaslReceiveLimit();
    const socket = startReads(
      accepted,
      { target: () => this.readTarget(), filled: (n, buf) => this.onRead(n, buf), chunk: (data) => this.onData(data) },
      // a TLS socket's bytes come decrypted through its stream: no handle to read into
      listener.tls === undefined ? broker.config.socketReads : 'stream',
    );
    this.socket = socket;
    socket.setNoDelay(true);
    socket.on('error', (e) => broker.logger.debug(`connection ${this.remote}: ${e.message}`));
    socket.on('close', () => {
      this.closed = true;
      this.decoder.dispose();
      this.clearQueue();
      this.countAnswerBytes();
      this.answersWritten?.();
      broker.connectionClosed(this);
      // its hidden classes (connection, socket, frame decoder, lists) outlive it: V8 keeps the
      // request path's optimized code for the next client (src/v8/map-anchors.ts). Not while the
      // broker closes: an in-process broker's objects are not kept past its close().
      if (!broker.isClosing) {
        // kept for its classes, not its memory: its read chunks (up to 512 KiB) go
        this.readChunk = NO_READ_CHUNK;
        this.readChunkMemory = NO_READ_CHUNK.buffer;
        this.readChunkUsed = 0;
        this.retiredChunks.length = 0;
        lastClosedConnection.keep(this);
      }
    });
  }

  /**
   * While a SASL connection is not authenticated (first authentication or KIP-368 re-authentication),
   * frames are bounded by `sasl.server.max.receive.size`: Kafka's SaslServerAuthenticator reads them
   * with that bound and closes the connection on a larger size prefix (InvalidReceiveException →
   * SaslAuthenticationException), before allocating anything. Clients wait for the authentication's
   * answer before sending more, so the bound switches between frames.
   */
  private applySaslReceiveLimit(): void {
    const sasl = this.state.security?.sasl;
    if (sasl === undefined) return;
    this.decoder.maxFrameBytes = sasl.authenticated ? this.broker.config.socketRequestMaxBytes : this.broker.security.saslServerMaxReceiveSize;
  }

  /** Where the socket's next bytes go: the rest of a large frame, else the read chunk. */
  private readTarget(): Buffer {
    const direct = this.decoder.directTarget();
    this.readingDirect = direct !== undefined;
    if (direct !== undefined) return direct;
    if (this.readChunk.length - this.readChunkUsed < Math.max(READ_MIN_BYTES, this.readChunkBytes >>> 2)) this.nextReadChunk();
    // at most readChunkBytes: what lands here of a large frame is copied into it once its size is known
    return this.readChunk.subarray(this.readChunkUsed, this.readChunkUsed + this.readChunkBytes);
  }

  /** Retires the read chunk for a reused one whose frames all came back, or a fresh one. */
  private nextReadChunk(): void {
    if (this.readChunk.length > 0) this.retiredChunks.push({ chunk: this.readChunk, memory: this.readChunkMemory, frames: this.readChunkFrames });
    let next: Buffer | undefined;
    let retiredBytes = 0;
    for (let i = 0; i < this.retiredChunks.length; i++) {
      const r = this.retiredChunks[i]!;
      if (next === undefined && r.frames === 0 && r.chunk.length === this.readChunkBytes && !this.decoder.holds(r.memory)) {
        next = r.chunk;
        this.retiredChunks.splice(i--, 1);
      } else {
        retiredBytes += r.chunk.length;
      }
    }
    // the oldest ones' frames may never come back: the garbage collector takes them
    while (retiredBytes > MAX_RETIRED_BYTES) retiredBytes -= this.retiredChunks.shift()!.chunk.length;
    this.readChunk = next ?? Buffer.allocUnsafeSlow(this.readChunkBytes);
    this.readChunkMemory = this.readChunk.buffer;
    this.readChunkUsed = 0;
    this.readChunkFrames = 0;
  }

  /** A handler no longer refers to its request frame: its memory may take later bytes. */
  private recycleFrame(frame: Buffer): void {
    const memory = frame.buffer;
    if (memory === this.readChunkMemory) {
      this.readChunkFrames--;
      return;
    }
    for (const r of this.retiredChunks) {
      if (r.memory === memory) {
        r.frames--;
        return;
      }
    }
    this.decoder.recycle(frame);
  }

  private onRead(n: number, buf: Buffer): void {
    // a read that did not fill its target took all the socket had: libuv reads it no more this turn
    this.lastReadDrained = n < buf.length;
    if (this.readingDirect) {
      this.onData(undefined, n);
    } else {
      this.readChunkUsed += n;
      // a whole chunk's worth filled: a client streaming requests (a request that happens to fill the
      // tail of a chunk exactly says nothing about the next)
      const filled = n === buf.length && n >= READ_CHUNK_BYTES;
      this.onData(buf, n);
      // a large frame began (assembled in place from now on): its first bytes were copied, keep that copy small
      if (this.decoder.directTarget() !== undefined) this.readChunkBytes = READ_CHUNK_BYTES;
      else if (filled && this.readChunkBytes < READ_CHUNK_MAX_BYTES) this.readChunkBytes *= 2;
    }
  }

  /** Received bytes: the first `n` of a chunk, or (chunk undefined) `n` bytes read into the frame being assembled. */
  private onData(chunk: Buffer | undefined, n = chunk?.length ?? 0): void {
    if (this.closed) return;
    const frames = this.readFrames;
    try {
      if (chunk === undefined) this.decoder.directFilledInto(n, frames);
      else this.decoder.pushInto(chunk, frames, n);
    } catch (e) {
      frames.clear();
      this.broker.logger.warnThrottled(`frame:${this.remote}`, `closing connection ${this.remote}: ${errorMessageOf(e)}`);
      this.destroy();
      return;
    }
    const failure = this.decoder.failed;
    if (failure !== undefined) {
      // the frames before the bad size prefix are answered first, then the connection closes
      this.broker.logger.warnThrottled(`frame:${this.remote}`, `closing connection ${this.remote} after ${frames.length} queued request(s): ${failure.message}`);
      this.closeWhenDrained = true;
    }
    if (frames.length === 0) return;
    let bytes = 0;
    const now = performance.now();
    // frames that are views of the read chunk are counted, to know when it can take reads again
    const chunkMemory = chunk?.buffer;
    const fromReadChunk = chunkMemory !== undefined && chunkMemory === this.readChunkMemory;
    for (let i = 0; i < frames.length; i++) {
      const f = frames.get(i);
      if (fromReadChunk && f.buffer === chunkMemory) this.readChunkFrames++;
      this.queue.push(f);
      this.queueArrivals.push(now);
      bytes += f.length;
    }
    frames.clear();
    this.queuedBytes += bytes;
    this.requests.add(bytes, this.queuedBytes);
    this.lastActive = Date.now();
    if (this.queue.length >= MAX_QUEUED_FRAMES || this.queuedBytes >= MAX_QUEUED_BYTES) this.socket.pause();
    else if (this.requests.full) {
      this.socket.pause();
      this.requests.whenBelow(this.resumeReading);
    }
    if (!this.processing) this.drain();
  }

  /**
   * Handles the queued requests. Most are answered at once, and then no promise is made: an async
   * drain was about 450 B and a promise per request, the most of any one function on the path of a
   * small Produce (heap profile, bench/README.md). Only when a request must wait (its handler
   * waits, the connection is muted for its answers or a quota throttle) does drainWaiting go on.
   */
  private drain(): void {
    this.processing = true;
    let waiting: Promise<void> | undefined;
    try {
      waiting = this.drainReady();
    } catch (e) {
      this.processing = false;
      this.drainFailed(e);
      return;
    }
    if (waiting === undefined) this.processing = false;
    else this.idle = this.drainWaiting(waiting).catch((e: unknown) => this.drainFailed(e));
  }

  private drainFailed(e: unknown): void {
    this.broker.logger.error(`connection ${this.remote} failed: ${(e as Error)?.stack ?? String(e)}`);
    this.destroy();
  }

  /** drain after a wait: each wait, then the requests that are ready, until none is left. */
  private async drainWaiting(first: Promise<void>): Promise<void> {
    try {
      let wait: Promise<void> | undefined = first;
      while (wait !== undefined) {
        const handler = this.waitingForHandler;
        try {
          await wait;
        } finally {
          if (handler) this.inRequest = false;
        }
        if (handler) this.afterRequest();
        wait = this.drainReady();
      }
    } finally {
      this.processing = false;
    }
  }

  /**
   * Handles queued requests up to one that must wait, and returns what it waits for (a handler's
   * promise when `waitingForHandler`); once the queue is empty, hands the answers on and returns undefined.
   */
  private drainReady(): Promise<void> | undefined {
    while (!this.closed && this.queue.length > 0) {
      if (this.answersPending()) {
        this.waitingForHandler = false;
        return this.untilAnswersWritten();
      }
      if (this.throttled !== undefined) {
        // the throttled answer goes out now; the next request waits for the mute to end
        this.flushAnswers();
        this.waitingForHandler = false;
        return this.throttled;
      }
      const frame = this.queue.shift();
      const arrivedAt = this.queueArrivals.shift();
      this.queuedBytes -= frame.length;
      this.requests.sub(frame.length);
      if (this.socket.isPaused()) this.maybeResumeReading();
      this.inRequest = true;
      let pending: Promise<void> | undefined;
      try {
        // most requests are handled synchronously: only a handler that waits (a long poll, a
        // rebalance, a SASL exchange) costs a promise and a turn of the microtask queue
        pending = this.handleFrame(frame, arrivedAt);
      } finally {
        if (pending === undefined) this.inRequest = false;
      }
      if (pending !== undefined) {
        this.waitingForHandler = true;
        return pending;
      }
      this.afterRequest();
    }
    if (this.closeWhenDrained && !this.closed) {
      this.flushAnswers();
      this.destroy();
    } else if (this.broker.heldAppends.holding && !(this.lastReadDrained && this.broker.servedConnections === 1)) {
      // wait for the other connections' appends of this turn: one write for all of them. A lone
      // connection whose socket is read out has none to wait for: answered now, without an
      // immediate per request (its object and Node's async-context stack store, about 290 B per
      // 100 B Produce in a heap profile)
      this.scheduleFlush();
    } else {
      this.flushAnswers();
    }
    return undefined;
  }

  /** After a request was handled: the SASL frame bound for the next, and a close the handler asked for. */
  private afterRequest(): void {
    this.applySaslReceiveLimit();
    if (this.state.closeAfterResponse) {
      this.flushAnswers();
      this.socket.end();
      this.closed = true;
    }
  }

  /**
   * True when this connection must take no new request until its socket has written its answers:
   * they reach the per-connection bound, or the broker-wide one is reached and it has some. Held
   * answers are handed to the socket first; what the kernel takes at once does not count.
   */
  private answersPending(): boolean {
    const own = this.heldBytes + this.socket.writableLength;
    if (own === 0 || (own < this.broker.config.queuedMaxResponseBytesPerConnection && !this.responses.full)) return false;
    this.flushAnswers();
    const unwritten = this.socket.writableLength;
    return unwritten > 0 && (unwritten >= this.broker.config.queuedMaxResponseBytesPerConnection || this.responses.full);
  }

  /** Mutes the connection (no reads) until the socket has written every answer, or closes. */
  private async untilAnswersWritten(): Promise<void> {
    this.socket.pause();
    await new Promise<void>((resolve) => (this.answersWritten = resolve));
    this.answersWritten = undefined;
    this.maybeResumeReading();
  }

  /**
   * Reads again unless a bound still holds: its own queue (hysteresis), muted for answers, or all
   * connections' queued requests while it has some queued itself. A connection whose queue is
   * empty reads at any total, so requests that wait on stalled clients never stall one that is served.
   */
  private maybeResumeReading(): void {
    if (this.closed || this.answersWritten !== undefined || this.throttled !== undefined || !this.socket.isPaused()) return;
    if (this.queue.length >= MAX_QUEUED_FRAMES / 2 || this.queuedBytes >= MAX_QUEUED_BYTES / 2) return;
    if (this.requests.full && this.queue.length > 0) this.requests.whenBelow(this.resumeReading);
    else this.socket.resume();
  }

  /** Brings this connection's share of `broker.queuedResponses` to its socket's unwritten bytes (none once closed). */
  private countAnswerBytes(): void {
    const now = this.closed ? 0 : this.socket.writableLength;
    const delta = now - this.countedAnswerBytes;
    if (delta === 0) return;
    this.countedAnswerBytes = now;
    if (delta > 0) this.responses.add(delta, now);
    else this.responses.sub(-delta);
  }

  /** The socket wrote a flush's last answer (or failed to: `closed`). */
  private onAnswersWritten(releases: KeptList<() => void>): void {
    runAll(releases);
    this.countAnswerBytes();
    if (this.socket.writableLength === 0) {
      this.lastActive = Date.now();
      this.answersWritten?.();
    }
  }

  /**
   * Closes the connection when nothing happened on it for `maxIdleMs` (Kafka's
   * `connections.max.idle.ms`, Selector.maybeCloseOldestConnection): no complete request arrived and
   * the socket wrote no answer. Kafka's Selector counts any bytes read as activity; here only a
   * complete request does, so a client sending a request a byte at a time is idle too (issue 17),
   * as is one that never reads its answers. A request being handled (a long poll) is not.
   */
  /** Whether `broker` is the broker this connection serves. */
  servedBy(broker: Broker): boolean {
    return this.broker === broker;
  }

  expireIfIdle(now: number, maxIdleMs: number): boolean {
    if (this.inRequest || this.closed || now - this.lastActive < maxIdleMs) return false;
    this.broker.logger.debug(`closing connection ${this.remote}: idle for more than ${maxIdleMs} ms (connections.max.idle.ms)`);
    this.destroy();
    return true;
  }

  private clearQueue(): void {
    this.requests.sub(this.queuedBytes);
    this.requests.forget(this.resumeReading);
    this.queue.clear();
    this.queueArrivals.clear();
    this.queuedBytes = 0;
  }

  /** flushAnswers once the event loop has run this turn's other read callbacks. */
  private scheduleFlush(): void {
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    if (turnEndFlushes.length === 0) setImmediate(flushAllAtTurnEnd);
    turnEndFlushes.push(this);
  }

  /** The turn-end flush scheduleFlush asked for (called by flushAllAtTurnEnd only). */
  flushAtTurnEnd(): void {
    this.flushScheduled = false;
    if (!this.tryFlushAnswers()) this.destroy();
  }

  /** flushAnswers outside a drain, where nothing catches: false (logged) when the held appends could not be written. */
  private tryFlushAnswers(): boolean {
    try {
      this.flushAnswers();
      return true;
    } catch (e) {
      this.broker.logger.error(`closing connection ${this.remote} without its answers: ${errorMessageOf(e)}`);
      return false;
    }
  }

  /** A SASL token sent without a Kafka header (SaslHandshake v0). */
  private async handleRawToken(frame: Buffer, sasl: SaslSession): Promise<void> {
    const { reply, close } = await handleRawSaslToken(this.broker, this.state, sasl, frame);
    if (reply !== undefined) this.write([reply], NO_RELEASES);
    if (close) this.destroy();
  }

  /** Handles one request, up to holding its answer; a promise only when the handler waits. */
  private handleFrame(frame: Buffer, arrivedAt: number): Promise<void> | undefined {
    const startedAt = performance.now();
    const sasl = this.state.security?.sasl;
    if (sasl?.expectsRawToken) return this.handleRawToken(frame, sasl);
    let header;
    try {
      header = readRequestHeader(frame, this.requestHeader);
    } catch (e) {
      this.broker.logger.warnThrottled(`header:${this.remote}`, `closing connection ${this.remote}: unreadable request header (${errorMessageOf(e)})`);
      this.destroy();
      return undefined;
    }
    const { apiKey, apiVersion, correlationId } = header;
    if (sasl !== undefined && !sasl.admits(apiKey, Date.now())) {
      if (sasl.answersUnexpectedRequests) return this.answerIllegalSaslState(frame, header);
      // before authentication only ApiVersions and the SASL requests reach a handler (SaslServerAuthenticator)
      this.broker.logger.warnThrottled(`sasl:${this.remote}`, `closing connection ${this.remote}: API key ${apiKey} not allowed in its SASL state (unauthenticated or session expired)`);
      this.destroy();
      return undefined;
    }
    if (apiKey === ApiKey.ApiVersions) sasl?.versionsAnswered();
    const handler = this.broker.handlerFor(apiKey, apiVersion);
    if (handler === undefined) {
      if (this.answerUnsupportedVersion(frame, header)) return;
      this.broker.logger.warnThrottled(
        `unsupported:${apiKey}:${apiVersion}`,
        `closing connection ${this.remote}: unsupported API key ${apiKey} version ${apiVersion} (client ${header.clientId})`,
      );
      this.destroy();
      return undefined;
    }
    // only APIs the broker serves are measured: a histogram per API key a client makes up (up to
    // 32767 of them, 8 KB each) would be memory any client could make the broker keep
    this.broker.requestMetrics.record(apiKey, PhaseIndex.queue, (startedAt - arrivedAt) * 1000);
    let request;
    try {
      request = decodeMessageValue(handler.api.request, Math.min(apiVersion, handler.api.request.validVersions[1]), frame, header.bodyOffset);
    } catch (e) {
      this.broker.logger.warnThrottled(
        `decode:${apiKey}`,
        `closing connection ${this.remote}: malformed ${handler.api.name} v${apiVersion} request (${errorMessageOf(e)})`,
      );
      this.destroy();
      return undefined;
    }
    // afterAnswer callbacks: handed to the held answer by write(), or held here when no answer goes out
    const releases = this.requestReleases;
    const ctx: RequestContext = {
      broker: this.broker,
      apiKey,
      apiVersion,
      correlationId,
      clientId: header.clientId,
      remote: this.remote,
      connection: this.state,
      afterAnswer: this.addRelease,
      // only a handler whose request nothing refers to after its answer calls this (through afterAnswer)
      recycleRequestFrame: () => this.recycleFrame(frame),
    };
    let pending: Promise<void> | undefined;
    try {
      pending = this.answer(handler, request, ctx, releases, arrivedAt, startedAt);
    } catch (e) {
      this.answered(releases);
      throw e;
    }
    if (pending === undefined) {
      this.answered(releases);
      return undefined;
    }
    return pending.finally(() => this.answered(releases));
  }

  /** A request was handled: releases no answer took (acks=0, a failure) still wait for the held appends. */
  private answered(releases: KeptList<() => void>): void {
    if (releases.length > 0) takeAll(releases, this.heldReleases);
    if (this.closed) this.releaseHeld();
  }

  /**
   * A known API in a version not served: answered UNSUPPORTED_VERSION where the version's
   * response can carry it (unsupported-version.ts); false when the connection must close instead.
   */
  private answerUnsupportedVersion(frame: Buffer, header: { apiKey: number; apiVersion: number; correlationId: number; bodyOffset: number; clientId: string }): boolean {
    const known = this.broker.knownHandler(header.apiKey);
    if (known === undefined) return false;
    let frameOut: Buffer[];
    try {
      const body = unsupportedVersionResponse(known, header.apiVersion, frame, header.bodyOffset);
      if (body === undefined) return false;
      frameOut = encodeResponseFrame(header.apiKey, header.apiVersion, header.correlationId, encodeMessage(known.api.response, header.apiVersion, body));
    } catch {
      return false; // a request that does not decode: closed like any malformed one
    }
    this.broker.logger.warnThrottled(
      `unsupported:${header.apiKey}:${header.apiVersion}`,
      `answered UNSUPPORTED_VERSION to ${known.api.name} v${header.apiVersion} from ${this.remote} (client ${header.clientId})`,
    );
    this.write(frameOut, NO_RELEASES);
    return true;
  }

  /**
   * A request in the middle of a v1 SASL exchange: its error response with ILLEGAL_SASL_STATE,
   * after connection.failed.authentication.delay.ms, then the close (SaslServerAuthenticator's
   * buildResponseOnAuthenticateFailure); a request that has no such answer closes at once.
   */
  private async answerIllegalSaslState(frame: Buffer, header: { apiKey: number; apiVersion: number; correlationId: number; bodyOffset: number }): Promise<void> {
    this.state.security?.sasl?.fail();
    const known = this.broker.knownHandler(header.apiKey);
    let frameOut: Buffer[] | undefined;
    try {
      const body = known === undefined ? undefined : unsupportedVersionResponse(known, header.apiVersion, frame, header.bodyOffset, ErrorCode.ILLEGAL_SASL_STATE);
      if (known !== undefined && body !== undefined) frameOut = encodeResponseFrame(header.apiKey, header.apiVersion, header.correlationId, encodeMessage(known.api.response, header.apiVersion, body));
    } catch {
      frameOut = undefined; // a request that does not decode: closed like any malformed one
    }
    this.broker.logger.warnThrottled(`sasl:${this.remote}`, `closing connection ${this.remote}: API key ${header.apiKey} during SASL authentication`);
    if (frameOut === undefined) {
      this.destroy();
      return;
    }
    // the answers to the requests before this one are not delayed: they go out now, in order (Kafka
    // sends each response once it is ready; only this failure's answer waits out the delay)
    if (!this.tryFlushAnswers()) {
      this.destroy();
      return;
    }
    await afterFailureDelay(this.broker, undefined);
    this.write(frameOut, NO_RELEASES);
    this.state.closeAfterResponse = true;
  }

  /** Runs the handler; a promise only when it waits. */
  private answer(handler: AnyApiHandler, request: unknown, ctx: RequestContext, releases: KeptList<() => void>, arrivedAt: number, startedAt: number): Promise<void> | undefined {
    let response;
    try {
      response = handler.handle(request, ctx);
      if (response instanceof Promise) {
        // this request may wait (a long poll, a group rebalance): the answers before it go out now
        this.flushAnswers();
        return response.then(
          (r) => this.answerWith(handler, r, ctx, releases, arrivedAt, startedAt),
          (e: unknown) => this.handlerFailed(handler, ctx, e),
        );
      }
    } catch (e) {
      this.handlerFailed(handler, ctx, e);
      return undefined;
    }
    return this.answerWith(handler, response, ctx, releases, arrivedAt, startedAt);
  }

  private handlerFailed(handler: AnyApiHandler, ctx: RequestContext, e: unknown): void {
    this.broker.logger.error(`${handler.api.name} v${ctx.apiVersion} from ${this.remote} failed: ${(e as Error)?.stack ?? String(e)}`);
    this.destroy();
  }

  /** Encodes and holds a handler's response; a promise only when a pre-KIP-219 client's answer waits out its throttle. */
  private answerWith(handler: AnyApiHandler, response: unknown, ctx: RequestContext, releases: KeptList<() => void>, arrivedAt: number, startedAt: number): Promise<void> | undefined {
    const { apiKey, apiVersion } = ctx;
    if (response === NO_RESPONSE || this.closed) return;
    // only ApiVersions is served above its own versions (KIP-511, Broker.handlerFor): that answer is v0
    const responseVersion = apiVersion > handler.maxVersion ? 0 : apiVersion;
    let frame;
    try {
      frame = encodeResponse(handler.api.response, apiKey, responseVersion, ctx.correlationId, response);
    } catch (e) {
      // a handler built a response its version cannot carry: a broker bug, but it must cost this
      // connection only — thrown out of drain() it was an unhandled rejection that killed the process
      this.broker.logger.error(`${handler.api.name} v${apiVersion} response from ${this.remote} cannot be encoded: ${(e as Error)?.stack ?? String(e)}`);
      this.destroy();
      return;
    }
    const throttleMs = throttleTimeOf(response);
    if (throttleMs > 0 && !clientThrottles(apiKey, responseVersion)) {
      // a client before KIP-219 does not back off: its answer waits out the throttle (the connection muted meanwhile)
      this.flushAnswers();
      return this.muteFor(throttleMs).then(() => {
        if (!this.closed) this.holdAnswer(handler, response, ctx, responseVersion, frame, releases, arrivedAt, startedAt);
      });
    } else if (throttleMs > 0) {
      void this.muteFor(throttleMs);
    }
    this.holdAnswer(handler, response, ctx, responseVersion, frame, releases, arrivedAt, startedAt);
    return undefined;
  }

  /** Hands an encoded answer to write(), with its storage-error stand-in while appends are held. */
  private holdAnswer(handler: AnyApiHandler, response: unknown, ctx: RequestContext, responseVersion: number, frame: Buffer[], releases: KeptList<() => void>, arrivedAt: number, startedAt: number): void {
    const { apiKey, correlationId } = ctx;
    const holding = this.broker.heldAppends.holding;
    const heldAt = performance.now();
    this.broker.requestMetrics.record(apiKey, PhaseIndex.handle, (heldAt - startedAt) * 1000);
    // while appends are held, what its KAFKA_STORAGE_ERROR form needs is kept (answerStorageError
    // builds it only if their write fails): fields, not a closure per request
    this.write(frame, releases, apiKey, arrivedAt, heldAt, holding ? handler : undefined, response, responseVersion, correlationId);
  }

  /** Kafka's THROTTLE_STARTED … THROTTLE_ENDED: no reading and no next request for `ms`. */
  private muteFor(ms: number): Promise<void> {
    this.socket.pause();
    const ended = new Promise<void>((resolve) => {
      const end = (): void => {
        task.cancel();
        if (this.throttled === ended) {
          this.throttled = undefined;
          this.endThrottle = undefined;
        }
        resolve();
        this.maybeResumeReading();
      };
      const task = this.broker.timer.schedule(ms, end);
      this.endThrottle = end;
    });
    this.throttled = ended;
    return ended;
  }

  /** Holds an answer; its request's releases now wait for the socket (taken out of `releases`). */
  private write(
    chunks: Buffer[],
    releases: KeptList<() => void>,
    apiKey = -1,
    // NaN, not 0, for answers that are not measured: the held answer's time fields then always hold
    // doubles, and V8 never deoptimizes the code that writes them when a small integer meets a double
    arrivedAt = NaN,
    heldAt = NaN,
    storageErrorOf?: AnyApiHandler,
    response?: unknown,
    responseVersion = 0,
    correlationId = 0,
  ): void {
    if (this.closed) return;
    // a written answer's record when there is one (its double fields are then rewritten in place):
    // a record and two boxed doubles per request otherwise
    const spare = this.spareAnswers.length;
    const a = spare > 0 ? this.spareAnswers.get(spare - 1)! : newHeldAnswer();
    this.spareAnswers.dropLast();
    a.chunks = chunks.length;
    a.storageErrorOf = storageErrorOf;
    a.response = response;
    a.responseVersion = responseVersion;
    a.correlationId = correlationId;
    a.apiKey = apiKey;
    a.arrivedAt = arrivedAt;
    a.heldAt = heldAt;
    this.heldAnswers.push(a);
    for (const c of chunks) {
      this.held.push(c);
      this.heldBytes += c.length;
    }
    takeAll(releases, this.heldReleases);
    if (this.heldBytes >= MAX_HELD_ANSWER_BYTES) this.flushAnswers();
  }

  /**
   * Hands the held answers to the socket in one write; their releases run once it took them. The
   * Produce appends they acknowledge are written first (Kafka answers after the append): when that
   * write fails (the log directory failed), the answers computed while it was pending go out as
   * KAFKA_STORAGE_ERROR instead and the releases never run (answerStorageError).
   */
  private flushAnswers(): void {
    try {
      this.broker.heldAppends.writeAll();
    } catch {
      this.answerStorageError();
      return;
    }
    if (this.held.length === 0 || this.closed) {
      this.heldAnswers.clear();
      this.held.clear();
      this.heldBytes = 0;
      runAll(this.heldReleases);
      return;
    }
    let writtenNow: SentFlush | undefined;
    {
      const flush = this.takeHeldIntoFlush();
      const sentAt = performance.now();
      flush.sentAt = sentAt;
      const metrics = this.broker.requestMetrics;
      const answers = flush.answers;
      for (let i = 0; i < answers.length; i++) {
        const a = answers.get(i)!;
        if (a.apiKey >= 0) metrics.record(a.apiKey, PhaseIndex.append, (sentAt - a.heldAt) * 1000);
      }
      const copy = this.held.length > 1 && this.heldBytes <= COPY_ANSWERS_UP_TO;
      const single = copy || this.held.length === 1;
      if (!single) this.socket.cork();
      const last = single ? 0 : this.held.length - 1;
      for (let i = 0; i < last; i++) this.socket.write(this.held.get(i));
      // called once written, or with an error when the socket is destroyed first: either way the
      // kernel no longer needs the bytes
      if (single) {
        // a write the kernel takes at once (the usual small answer) is done when write() returns:
        // without a callback Node's Writable schedules no nextTick, whose tick record and run of
        // the tick queue (a Map per run) were about 500 B per 100 B Produce round trip (heap
        // profile). Otherwise an empty write's callback runs once the bytes before it are written.
        this.socket.write(copy ? concatHeld(this.held, this.heldBytes) : this.held.get(0));
        if (this.socket.writableLength === 0) writtenNow = flush;
        else this.socket.write(NO_BYTES, flush.written);
      } else {
        this.socket.write(this.held.get(last), flush.written);
        this.socket.uncork();
      }
      this.countAnswerBytes();
    }
    this.held.clear();
    this.heldBytes = 0;
    // after the held lists are clear: a release that threw could otherwise leave the written answers held, to go out again
    writtenNow?.written();
  }

  /** A flush record (a spare one, else a new one) now holding the held answers and releases; the held lists are its emptied ones. */
  private takeHeldIntoFlush(): SentFlush {
    let flush = this.spareFlushes.pop();
    if (flush === undefined) {
      const made: SentFlush = {
        answers: new KeptList<HeldAnswer | undefined>(objectArray(), undefined),
        releases: new KeptList<() => void>(objectArray(), noop),
        sentAt: NaN,
        written: () => this.flushWritten(made),
      };
      flush = made;
    }
    const answers = flush.answers;
    flush.answers = this.heldAnswers;
    this.heldAnswers = answers;
    const releases = flush.releases;
    flush.releases = this.heldReleases;
    this.heldReleases = releases;
    return flush;
  }

  /**
   * The socket wrote a flush's answers, or failed to (destroyed first): either way the kernel no
   * longer needs their bytes. Its record goes back to the spares (at most MAX_SPARE_FLUSHES).
   */
  private flushWritten(flush: SentFlush): void {
    const writtenAt = performance.now();
    const metrics = this.broker.requestMetrics;
    const answers = flush.answers;
    for (let i = 0; i < answers.length; i++) {
      const a = answers.get(i)!;
      if (a.apiKey < 0) continue;
      metrics.record(a.apiKey, PhaseIndex.write, (writtenAt - flush.sentAt) * 1000);
      metrics.record(a.apiKey, PhaseIndex.total, (writtenAt - a.arrivedAt) * 1000);
    }
    // their records are reused by the next answers (without the responses they refer to)
    for (let i = 0; i < answers.length && this.spareAnswers.length < MAX_SPARE_ANSWERS; i++) {
      const a = answers.get(i)!;
      a.storageErrorOf = undefined;
      a.response = undefined;
      this.spareAnswers.push(a);
    }
    answers.clear();
    this.onAnswersWritten(flush.releases);
    if (flush.releases.length === 0 && this.spareFlushes.length < MAX_SPARE_FLUSHES) this.spareFlushes.push(flush);
  }

  /**
   * The held appends could not be written (the log directory failed, log-dir-failure.ts): the
   * answers computed while they were held go out as KAFKA_STORAGE_ERROR, the others as they were.
   * The releases are dropped: a frame may still be the bytes of an append never written.
   */
  private answerStorageError(): void {
    const out: Buffer[] = [];
    let at = 0;
    for (let i = 0; i < this.heldAnswers.length; i++) {
      const a = this.heldAnswers.get(i)!;
      let instead: Buffer[] | undefined;
      try {
        if (a.storageErrorOf !== undefined) {
          instead = storageErrorFrame(a.storageErrorOf, a.apiKey, a.responseVersion, a.correlationId, a.response, 'The log directory failed before this answer was sent');
        }
      } catch (e) {
        this.broker.logger.error(`storage error answer to ${this.remote} cannot be encoded: ${errorMessageOf(e)}`);
      }
      if (instead !== undefined) out.push(...instead);
      else for (let k = at; k < at + a.chunks; k++) out.push(this.held.get(k));
      at += a.chunks;
    }
    this.heldAnswers.clear();
    this.held.clear();
    this.heldBytes = 0;
    this.heldReleases.clear();
    if (this.closed || out.length === 0) return;
    this.socket.cork();
    for (let i = 0; i < out.length - 1; i++) this.socket.write(out[i]!);
    this.socket.write(out[out.length - 1]!, () => this.onAnswersWritten(NO_RELEASES));
    this.socket.uncork();
    this.countAnswerBytes();
  }

  /**
   * Runs the held releases without an answer (the connection is closing): after the held appends
   * are written; when that write fails they are dropped, and the garbage collector frees what they
   * would have given back (a frame may still be the bytes of an append never written).
   */
  private releaseHeld(): void {
    const releases = this.heldReleases;
    if (releases.length === 0) return;
    try {
      this.broker.heldAppends.writeAll();
    } catch {
      releases.clear();
      return;
    }
    runAll(releases);
  }

  destroy(): void {
    this.decoder.dispose();
    this.heldAnswers.clear();
    this.held.clear();
    this.heldBytes = 0;
    this.releaseHeld();
    this.closed = true;
    this.clearQueue();
    this.countAnswerBytes();
    this.answersWritten?.();
    this.endThrottle?.();
    this.socket.destroy();
  }

  /** Graceful close: finish the request in progress, then end the socket. */
  async close(): Promise<void> {
    this.clearQueue();
    // a connection muted for answers its client never reads, or for a quota throttle, stops waiting
    this.answersWritten?.();
    this.endThrottle?.();
    await this.idle;
    if (!this.closed) this.tryFlushAnswers();
    this.releaseHeld();
    this.closed = true;
    this.socket.end();
  }
}

/**
 * Connections whose held answers go out at this turn's end, in the order they asked, all from one
 * immediate: one per connection was a different callback each, and Node's processImmediate,
 * optimized for the first connection's, deoptimized ('wrong call target') at every new client's.
 */
/** A connection's read chunk before its first read and after its close. */
const NO_READ_CHUNK = Buffer.alloc(0);

/** The connection that closed last (src/v8/map-anchors.ts). */
const lastClosedConnection = new LatestInstance<Connection>();

/** Lets go of the last closed connection if it was `broker`'s (its close(): nothing of it stays reachable). */
export function forgetClosedConnectionOf(broker: Broker): void {
  if (lastClosedConnection.kept?.servedBy(broker)) lastClosedConnection.clear();
}

const turnEndFlushes = new KeptList<Connection | undefined>(objectArray(), undefined);

function flushAllAtTurnEnd(): void {
  let i = 0;
  try {
    // by index: a flush may ask for another connection's, which then runs in this pass too
    for (; i < turnEndFlushes.length; i++) turnEndFlushes.get(i)!.flushAtTurnEnd();
  } finally {
    // one that threw is dropped (its flushScheduled is already false); the rest go in a new immediate
    if (i + 1 < turnEndFlushes.length) {
      turnEndFlushes.dropFirst(i + 1);
      setImmediate(flushAllAtTurnEnd);
    } else {
      turnEndFlushes.clear();
    }
  }
}

/** Answers handed to the socket in one write, until it has written them; `written` is the write's callback. */
interface SentFlush {
  answers: KeptList<HeldAnswer | undefined>;
  releases: KeptList<() => void>;
  /** performance.now() when handed to the socket. */
  sentAt: number;
  readonly written: () => void;
}

function newHeldAnswer(): HeldAnswer {
  return { chunks: 0, storageErrorOf: undefined, response: undefined, responseVersion: 0, correlationId: 0, apiKey: -1, arrivedAt: NaN, heldAt: NaN };
}

/** One held answer: how many of `held` are its chunks, and what the request metrics need of it. */
interface HeldAnswer {
  chunks: number;
  /**
   * Set when it was computed while Produce appends were held: the handler whose response, in its
   * KAFKA_STORAGE_ERROR form, is sent instead if their write fails (with the fields below).
   */
  storageErrorOf: AnyApiHandler | undefined;
  response: unknown;
  responseVersion: number;
  correlationId: number;
  /** -1 for answers outside the handlers (SASL tokens, UNSUPPORTED_VERSION): not measured. */
  apiKey: number;
  /** performance.now() when its frame was complete, and when the answer was held. */
  arrivedAt: number;
  heldAt: number;
}

/** Moves every callback of `from` to the end of `to` (no array per request, as `splice(0)` made). */
function takeAll(from: KeptList<() => void>, to: KeptList<() => void>): void {
  for (let i = 0; i < from.length; i++) to.push(from.get(i));
  from.clear();
}

/** Runs and forgets the callbacks in `fns`. */
function runAll(fns: KeptList<() => void>): void {
  // by index; callbacks a callback adds stay
  const n = fns.length;
  try {
    for (let i = 0; i < n; i++) fns.get(i)();
  } finally {
    fns.dropFirst(n);
  }
}

/** The held answers' chunks copied into one buffer of `bytes` (Buffer.concat takes only arrays). */
function concatHeld(held: KeptList<Buffer>, bytes: number): Buffer {
  const out = Buffer.allocUnsafe(bytes);
  let at = 0;
  for (let i = 0; i < held.length; i++) {
    const c = held.get(i);
    c.copy(out, at);
    at += c.length;
  }
  return out;
}

/** What emptied slots of Buffer lists hold. */
const NO_BYTES = Buffer.alloc(0);
function noop(): void {}
/** The releases of a write that has none (answerStorageError's). */
const NO_RELEASES = new KeptList<() => void>(objectArray(), noop);
