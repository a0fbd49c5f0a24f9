"""kafka-python builds legacy message sets (LegacyRecordBatchBuilder, magic 0 and 1) from JSON cases.

Input:  {"cases": [{"magic": 0|1, "codec": "none"|"gzip"|"snappy"|"lz4", "baseOffset": "<int64>",
                    "logAppendTime": null | "<int64>",
                    "records": [{"offsetDelta", "timestamp": "<int64>", "key": hex|null, "value": hex|null}]}]}
Output: {"sets": [{"hex"}]}

What a broker does to a produced set is done here with kafka-python's own pieces, never kafkalite's:
 - uncompressed: each entry gets its absolute offset (baseOffset + offsetDelta);
 - compressed magic 0: inner offsets are absolute; magic 1: inner offsets are the relative deltas
   (Kafka's toInnerOffset); the wrapper offset (kafka-python writes 0) is set to the last absolute
   offset. The offset sits outside the message CRC, so no CRC changes;
 - logAppendTime (magic 1 only): the broker's in-place LogAppendTime assignment: the wrapper's (or,
   uncompressed, every message's) timestamp-type bit is set and its timestamp replaced, and the CRC
   recomputed with kafka-python's calc_crc32 (Kafka's LegacyRecord.setTimestampAndUpdateCrc).
kafka-python's magic-0 lz4 uses the old broken frame header checksum (lz4_encode_old_kafka).
"""
import struct

from kafka.record.legacy_records import LegacyRecordBatchBuilder
from kafka.record.util import calc_crc32

from kp_common import read_input, write_output, unhex, codec_id

LOG_OVERHEAD = 12


def set_log_append_time(buf, pos, ts):
    # entry at pos: offset(8) size(4) crc(4) magic(1) attributes(1) timestamp(8)
    size = struct.unpack_from('>i', buf, pos + 8)[0]
    assert buf[pos + 16] == 1
    buf[pos + 17] |= 0x08
    struct.pack_into('>q', buf, pos + 18, ts)
    crc = calc_crc32(memoryview(buf)[pos + 16:pos + LOG_OVERHEAD + size])
    struct.pack_into('>I', buf, pos + 12, crc)
    return pos + LOG_OVERHEAD + size


def build(case):
    magic = case['magic']
    codec = codec_id(case['codec'])
    base = int(case['baseOffset'])
    builder = LegacyRecordBatchBuilder(magic=magic, compression_type=codec, batch_size=2 ** 31 - 1)
    for r in case['records']:
        delta = r['offsetDelta']
        offset = delta if (codec != 0 and magic == 1) else base + delta
        meta = builder.append(offset, int(r['timestamp']), unhex(r['key']), unhex(r['value']))
        if meta is None:
            raise RuntimeError('kafka-python refused a record (batch_size)')
    buf = bytearray(builder.build())
    if codec != 0:
        struct.pack_into('>q', buf, 0, base + case['records'][-1]['offsetDelta'])
    lat = case.get('logAppendTime')
    if lat is not None:
        if magic != 1:
            raise ValueError('LogAppendTime needs magic 1')
        pos = 0
        while pos < len(buf):
            pos = set_log_append_time(buf, pos, int(lat))
    return {'hex': bytes(buf).hex()}


def main():
    doc = read_input()
    write_output({'sets': [build(c) for c in doc['cases']]})


if __name__ == '__main__':
    main()
