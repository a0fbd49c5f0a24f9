/** Big-endian builders of the classic (non-flexible) encodings, for records written by hand from Kafka's JSON message definitions. */
export const i8 = (v: number) => Buffer.from([v & 0xff]);
export const i16 = (v: number) => {
  const b = Buffer.alloc(2);
  b.writeInt16BE(v);
  return b;
};
export const i32 = (v: number) => {
  const b = Buffer.alloc(4);
  b.writeInt32BE(v);
  return b;
};
export const i64 = (v: bigint) => {
  const b = Buffer.alloc(8);
  b.writeBigInt64BE(v);
  return b;
};
export const str = (s: string) => Buffer.concat([i16(Buffer.byteLength(s)), Buffer.from(s)]);
export const bytes = (b: Buffer | null) => (b === null ? i32(-1) : Buffer.concat([i32(b.length), b]));
export const cat = (...parts: Buffer[]) => Buffer.concat(parts);
