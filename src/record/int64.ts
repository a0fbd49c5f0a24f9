/** int64 fields accept `bigint` (exact) or a safe-integer `number` (convenient); both write exactly. */
export type Int64Input = bigint | number;

const TWO_32 = 4294967296;

export function writeInt64BE(buf: Buffer, pos: number, value: Int64Input): void {
  if (typeof value === 'bigint') {
    buf.writeBigInt64BE(value, pos);
    return;
  }
  const hi = Math.floor(value / TWO_32);
  buf.writeInt32BE(hi | 0, pos);
  buf.writeUInt32BE(value - hi * TWO_32, pos + 4);
}

export function toBigInt64(value: Int64Input): bigint {
  return typeof value === 'bigint' ? value : BigInt(value);
}
