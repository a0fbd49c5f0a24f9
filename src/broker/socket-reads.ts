/**
 * Socket reads into memory the broker chooses.
 *
 * Node reads an accepted socket into a fresh 64 KiB ArrayBuffer per read and emits it as 'data'.
 * For a 1 MiB Produce that is 16 fresh chunks plus a copy of each into the frame. Both costs are
 * large on a machine where fresh memory is expensive: in `perf` of the 1 MiB produce bench memmove
 * and the garbage collection driven by the chunks were a fifth of the broker (bench/README.md).
 *
 * `new net.Socket({ onread: { buffer, callback } })` reads into whatever buffer `buffer()` returns.
 * With it, the rest of a large frame is read straight into its pooled buffer (framing.ts,
 * `FrameDecoder.directTarget`). net.Server has no such option for the sockets it accepts, though.
 * So the server pauses each accepted socket (`pauseOnConnect`) and its handle is wrapped in a new
 * Socket with `onread`. This is the same `new Socket({ handle })` that net.Server itself runs in
 * `onconnection` (lib/net.js, Node 20 to 24), plus `onread`.
 *
 * The accepted Socket object gives up its handle and is destroyed without it. That only takes it
 * out of the server's connection count; the broker tracks and closes its connections itself.
 *
 * Where this is not possible (a handle that is not a stream handle), or in `stream` mode (the broker
 * property `kafkalite.socket.reads=stream`), `startReads` reads 'data' events instead: the same
 * bytes with one more copy.
 */
import { Socket, type SocketConstructorOpts } from 'node:net';

export interface SocketReader {
  /** Where the next read puts its bytes (called after every read, and once while wrapping). */
  target(): Buffer;
  /** `n` bytes were read into `buf`, the last `target()`. */
  filled(n: number, buf: Buffer): void;
  /** A chunk Node read itself, when the socket could not be adopted. */
  chunk(data: Buffer): void;
}

/** `direct`: into the buffers the reader chooses where possible; `stream`: Node's own 'data' chunks. */
export type SocketReadMode = 'direct' | 'stream';

interface StreamHandle {
  useUserBuffer(buf: Uint8Array): void;
  readStart(): number;
}

/** Starts reading an accepted (paused) socket through `reader`; returns the socket to use from now on. */
export function startReads(accepted: Socket, reader: SocketReader, mode: SocketReadMode = 'direct'): Socket {
  const adopted = mode === 'direct' ? adoptSocketReads(accepted, reader) : undefined;
  if (adopted !== undefined) return adopted;
  accepted.on('data', (data: Buffer) => reader.chunk(data));
  accepted.resume();
  return accepted;
}

/** The accepted (paused) `socket`'s connection, now read through `reader`; undefined when it cannot be. */
export function adoptSocketReads(socket: Socket, reader: Pick<SocketReader, 'target' | 'filled'>): Socket | undefined {
  const holder = socket as unknown as { _handle?: Partial<StreamHandle> | null };
  const handle = holder._handle;
  if (typeof handle?.useUserBuffer !== 'function' || typeof handle.readStart !== 'function' || socket.destroyed) return undefined;
  const options = {
    handle,
    readable: true,
    writable: true,
    onread: {
      buffer: () => reader.target(),
      callback: (n: number, buf: Uint8Array) => {
        reader.filled(n, buf as Buffer);
        return true;
      },
    },
  } as SocketConstructorOpts;
  holder._handle = null;
  socket.destroy();
  return new Socket(options);
}
