/**
 * Independent codec implementations for cross-checks: the system Python with Debian's python3-lz4
 * (`lz4.frame`, `lz4.block`), python3-snappy, kafka-python's `kafka.codec` xerial functions,
 * python3-zstandard and the stdlib gzip module. All ops of one call run in one Python process.
 * Tests fail (never skip) when Python or a module is missing.
 */
import { spawnSync } from 'node:child_process';
import { PYTHON } from './python-peer.js';
import { requirePeer } from './tier.js';

/** The same interpreter (and KAFKALITE_PYTHON override) as the script-based peers. */
export { PYTHON };

const SCRIPT = String.raw`
import sys, json, base64, gzip
import lz4.frame, lz4.block, snappy, zstandard
from kafka.codec import snappy_encode, snappy_decode

def dec(s): return base64.b64decode(s)
def enc(x): return base64.b64encode(bytes(x)).decode()

BLOCK = {'64KB': lz4.frame.BLOCKSIZE_MAX64KB, '256KB': lz4.frame.BLOCKSIZE_MAX256KB,
         '1MB': lz4.frame.BLOCKSIZE_MAX1MB, '4MB': lz4.frame.BLOCKSIZE_MAX4MB}

def run(op):
    name = op['op']
    a = dict(op.get('args') or {})
    data = b'\0' * op['zeros'] if 'zeros' in op else dec(op.get('data', ''))
    if name == 'lz4_frame_decompress':
        return lz4.frame.decompress(data)
    if name == 'lz4_frame_compress':
        if 'block_size' in a: a['block_size'] = BLOCK[a['block_size']]
        return lz4.frame.compress(data, **a)
    if name == 'lz4_block_compress':
        return lz4.block.compress(data, store_size=False)
    if name == 'snappy_raw_compress':
        return snappy.compress(data)
    if name == 'snappy_raw_decompress':
        return snappy.decompress(data)
    if name == 'xerial_encode':
        return snappy_encode(data, **a)
    if name == 'xerial_decode':
        return snappy_decode(data)
    if name == 'zstd_compress':
        return zstandard.ZstdCompressor(**a).compress(data)
    if name == 'zstd_decompress':
        # decompressobj handles frames without a content size; one frame per call
        return zstandard.ZstdDecompressor().decompressobj().decompress(data)
    if name == 'zstd_frame_has_content_size':
        return bytes([1 if zstandard.frame_content_size(data) >= 0 else 0])
    if name == 'gzip_compress':
        return gzip.compress(data, **a)
    if name == 'gzip_decompress':
        return gzip.decompress(data)
    raise ValueError('unknown op ' + name)

out = []
for op in json.load(sys.stdin):
    try:
        out.append({'ok': True, 'data': enc(run(op))})
    except Exception as ex:
        out.append({'ok': False, 'error': type(ex).__name__ + ': ' + str(ex)})
json.dump(out, sys.stdout)
`;

export interface PyOp {
  op: string;
  data?: Uint8Array;
  /** Use `zeros` bytes of 0x00 as input instead of `data` (bombs: nothing crosses the pipe). */
  zeros?: number;
  args?: Record<string, unknown>;
}

export type PyResult = { ok: true; data: Buffer } | { ok: false; error: string };

/** Runs the ops in one Python process; results in order. Throws if Python itself fails. */
export function py(ops: readonly PyOp[]): PyResult[] {
  requirePeer('python3 (codec cross-checks)');
  const input = JSON.stringify(
    ops.map((o) => ({
      op: o.op,
      args: o.args,
      ...(o.zeros !== undefined ? { zeros: o.zeros } : { data: Buffer.from(o.data ?? new Uint8Array()).toString('base64') }),
    })),
  );
  const r = spawnSync(PYTHON, ['-c', SCRIPT], { input, maxBuffer: 1 << 30, encoding: 'utf8' });
  if (r.error) throw r.error;
  if (r.status !== 0) throw new Error(`python failed (${r.status}): ${r.stderr}`);
  const parsed = JSON.parse(r.stdout) as ({ ok: true; data: string } | { ok: false; error: string })[];
  return parsed.map((x) => (x.ok ? { ok: true, data: Buffer.from(x.data, 'base64') } : x));
}

/** Runs one op and returns its bytes, throwing on a Python-side error. */
export function py1(op: PyOp): Buffer {
  const [r] = py([op]);
  if (!r!.ok) throw new Error(`python ${op.op}: ${r!.error}`);
  return r!.data;
}

/** Like `py`, but every op must succeed. */
export function pyAll(ops: readonly PyOp[]): Buffer[] {
  return py(ops).map((r, i) => {
    if (!r.ok) throw new Error(`python ${ops[i]!.op}: ${r.error}`);
    return r.data;
  });
}
