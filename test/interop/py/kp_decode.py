"""kafka-python decodes v2 record batches (DefaultRecordBatch) and reports every field as JSON.

Input:  {"batches": ["hex", ...]}
Output: {"results": [{"ok": true, "crcValid", "header": {...}, "records": [...]} | {"ok": false, "error"}]}

The header is unpacked with kafka-python's own HEADER_STRUCT; records come from iterating the batch
(which decompresses with kafka-python's codecs and checks every record's declared length).
"""
from kafka.record.default_records import DefaultRecordBatch

from kp_common import read_input, write_output, unhex, tohex


def decode(hexstr):
    data = unhex(hexstr)
    batch = DefaultRecordBatch(data)
    (base_offset, length, ple, magic, crc, attributes, last_offset_delta, first_ts, max_ts,
     producer_id, producer_epoch, base_sequence, count) = batch._header_data
    crc_valid = batch.validate_crc()
    records = []
    for rec in batch:
        records.append({
            'offset': str(rec.offset),
            'timestamp': str(rec.timestamp),
            'timestampType': rec.timestamp_type,
            'key': tohex(rec.key),
            'value': tohex(rec.value),
            'headers': [[k, tohex(v)] for k, v in rec.headers],
        })
    return {
        'ok': True,
        'crcValid': crc_valid,
        'header': {
            'baseOffset': str(base_offset),
            'length': length,
            'partitionLeaderEpoch': ple,
            'magic': magic,
            'crc': crc,
            'attributes': attributes,
            'compressionType': batch.compression_type,
            'timestampType': batch.timestamp_type,
            'isTransactional': batch.is_transactional,
            'isControl': batch.is_control_batch,
            'lastOffsetDelta': last_offset_delta,
            'firstTimestamp': str(first_ts),
            'maxTimestamp': str(max_ts),
            'producerId': str(producer_id),
            'producerEpoch': producer_epoch,
            'baseSequence': base_sequence,
            'count': count,
        },
        'records': records,
    }


def main():
    doc = read_input()
    results = []
    for h in doc['batches']:
        try:
            results.append(decode(h))
        except Exception as err:  # reported per batch, so one failure does not hide the others
            results.append({'ok': False, 'error': '%s: %s' % (type(err).__name__, err)})
    write_output({'results': results})


if __name__ == '__main__':
    main()
