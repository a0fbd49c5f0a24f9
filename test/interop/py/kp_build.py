"""kafka-python builds v2 record batches (DefaultRecordBatchBuilder, magic 2) from JSON cases.

Input:  {"cases": [{"codec", "producerId", "producerEpoch", "baseSequence", "transactional",
                    "baseOffset", "partitionLeaderEpoch",
                    "records": [{"offsetDelta", "timestamp", "key", "value", "headers": [[k, v]]}]}]}
Output: {"batches": [{"hex", "compressed"}]}

kafka-python always writes baseOffset 0 and partitionLeaderEpoch 0 (the broker assigns them); both
sit outside the CRC, so they are patched afterwards exactly as a broker would.
"""
import struct

from kafka.record.default_records import DefaultRecordBatchBuilder

from kp_common import read_input, write_output, unhex, codec_id


def build(case):
    builder = DefaultRecordBatchBuilder(
        magic=2,
        compression_type=codec_id(case['codec']),
        is_transactional=case['transactional'],
        producer_id=int(case['producerId']),
        producer_epoch=case['producerEpoch'],
        base_sequence=case['baseSequence'],
        batch_size=2 ** 31 - 1,
    )
    for r in case['records']:
        headers = [(k, unhex(v)) for k, v in r['headers']]
        meta = builder.append(r['offsetDelta'], int(r['timestamp']), unhex(r['key']), unhex(r['value']), headers)
        if meta is None:
            raise RuntimeError('kafka-python refused a record (batch_size)')
    # build() compresses, and falls back to no compression when that does not save space
    compressed = builder._maybe_compress()
    builder.write_header(compressed)
    buf = builder._buffer
    struct.pack_into('>q', buf, 0, int(case['baseOffset']))
    struct.pack_into('>i', buf, 12, case['partitionLeaderEpoch'])
    return {'hex': bytes(buf).hex(), 'compressed': bool(compressed)}


def main():
    doc = read_input()
    write_output({'batches': [build(c) for c in doc['cases']]})


if __name__ == '__main__':
    main()
