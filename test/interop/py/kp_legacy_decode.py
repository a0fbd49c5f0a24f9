"""kafka-python decodes record streams of any magic (MemoryRecords: LegacyRecordBatch for magic 0/1,
DefaultRecordBatch for magic 2) and reports every field as JSON.

Input:  {"streams": ["hex", ...]}
Output: {"results": [{"ok": true, "validBytes", "batches": [...]} | {"ok": false, "error"}]}

Legacy batch: {"kind": "legacy", "position", "size", "magic", "offset", "crc", "crcValid", "attributes",
  "compressionType", "timestamp" (-1 for magic 0), "timestampType" (null|0|1), "lz4": null |
  {"stored", "correct", "broken"} (frame header checksum byte as stored, as computed over FLG..BD,
  and as Kafka's magic-0 bug computes it over magic..BD), "records": [{"offset", "timestamp",
  "timestampType", "key", "value", "crc", "crcValid"}]}.
Inner-record CRC validity is recomputed here over kafka-python's decompressed inner entries.
v2 batch: {"kind": "v2", "position", "size", ...kp_decode's fields}.
"""
import struct

import xxhash
from kafka.record.memory_records import MemoryRecords
from kafka.record.legacy_records import LegacyRecordBatch
from kafka.record.util import calc_crc32

from kp_common import read_input, write_output, unhex, tohex
import kp_decode

LOG_OVERHEAD = 12


def hc(data):
    return xxhash.xxh32(bytes(data)).digest()[-2]


def lz4_info(batch, raw):
    if batch.compression_type != 3:
        return None
    key_at = 18 if batch._magic == 0 else 26  # log overhead + crc, magic, attributes [+ timestamp]
    key_size = struct.unpack_from('>i', raw, key_at)[0]
    value_at = key_at + 4 + max(key_size, 0) + 4
    value = raw[value_at:]
    flg = value[4]
    end = 7 + (8 if flg & 0x08 else 0)
    return {'stored': value[end - 1], 'correct': hc(value[4:end - 1]), 'broken': hc(value[0:end - 1])}


def legacy(batch, raw, position):
    size = len(raw)
    magic = batch._magic
    info = {
        'kind': 'legacy',
        'position': position,
        'size': size,
        'magic': magic,
        'offset': str(batch._offset),
        'crc': batch._crc,
        'crcValid': batch.validate_crc(),
        'attributes': batch._attributes,
        'compressionType': batch.compression_type,
        'timestamp': str(-1 if batch._timestamp is None else batch._timestamp),
        'timestampType': batch.timestamp_type,
        'lz4': lz4_info(batch, raw),
    }
    records = [r for r in batch]
    # per-message CRC validity: the entry itself, or each inner entry of the decompressed set
    if batch.compression_type:
        inner = bytes(batch._buffer)
        valid = []
        for header, pos in batch._read_all_headers():
            length = header[1]
            valid.append(calc_crc32(inner[pos + 16:pos + LOG_OVERHEAD + length]) == header[2])
    else:
        valid = [info['crcValid']]
    assert len(valid) == len(records)
    info['records'] = [{
        'offset': str(r.offset),
        'timestamp': str(-1 if r.timestamp is None else r.timestamp),
        'timestampType': r.timestamp_type,
        'key': tohex(r.key),
        'value': tohex(r.value),
        'crc': r.checksum,
        'crcValid': v,
    } for r, v in zip(records, valid)]
    return info


def decode_stream(hexstr):
    data = unhex(hexstr)
    mr = MemoryRecords(data)
    batches = []
    position = 0
    while True:
        batch = mr.next_batch()
        if batch is None:
            break
        raw = bytes(batch._buffer)
        if isinstance(batch, LegacyRecordBatch):
            batches.append(legacy(batch, raw, position))
        else:
            d = kp_decode.decode(raw.hex())
            d.update({'kind': 'v2', 'position': position, 'size': len(raw)})
            batches.append(d)
        position += len(raw)
    return {'ok': True, 'validBytes': mr.valid_bytes(), 'batches': batches}


def main():
    doc = read_input()
    results = []
    for h in doc['streams']:
        try:
            results.append(decode_stream(h))
        except Exception as err:  # reported per stream
            results.append({'ok': False, 'error': '%s: %s' % (type(err).__name__, err)})
    write_output({'results': results})


if __name__ == '__main__':
    main()
