/**
 * A Buffer over the same memory as a Uint8Array (no copy), for Node's Buffer methods and for
 * libraries that take only Buffers. `Buffer.from(uint8array)` would copy the bytes.
 */
export function bufferView(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
