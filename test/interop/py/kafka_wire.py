"""Raw Kafka requests over a plain socket with kafka-python's protocol classes.

kafka-python's Struct.encode is a weakly bound method, so the request and header objects must stay
referenced while they are encoded (hence the local variables).
"""
import io
import socket
import struct

from kafka.protocol.api import RequestHeader
from kafka.protocol.fetch import FetchRequest
from kafka.protocol.produce import ProduceRequest

from kafka.errors import for_code


class Connection(object):
    def __init__(self, host, port, timeout=10.0):
        self.sock = socket.create_connection((host, port), timeout=timeout)
        self.correlation_id = 0

    def close(self):
        self.sock.close()

    def _read_exactly(self, n):
        chunks = []
        while n > 0:
            chunk = self.sock.recv(n)
            if not chunk:
                raise EOFError('broker closed the connection')
            chunks.append(chunk)
            n -= len(chunk)
        return b''.join(chunks)

    def call(self, request):
        self.correlation_id += 1
        header = RequestHeader(request, correlation_id=self.correlation_id, client_id='kafkalite-interop')
        payload = header.encode() + request.encode()
        self.sock.sendall(struct.pack('>i', len(payload)) + payload)
        size = struct.unpack('>i', self._read_exactly(4))[0]
        data = self._read_exactly(size)
        correlation_id = struct.unpack_from('>i', data, 0)[0]
        if correlation_id != self.correlation_id:
            raise RuntimeError('correlation id %d, expected %d' % (correlation_id, self.correlation_id))
        return request.RESPONSE_TYPE.decode(io.BytesIO(data[4:]))


def error_name(code):
    return 'NONE' if code == 0 else '%s(%d)' % (for_code(code).__name__, code)


def fetch_raw(conn, topic, partition, offset, max_bytes=64 * 1024 * 1024, version=4, isolation_level=0):
    """One Fetch (v4+: magic-2 record batches); returns (error_code, high_watermark, raw records bytes)."""
    request = FetchRequest[version](
        replica_id=-1, max_wait_time=100, min_bytes=1, max_bytes=max_bytes, isolation_level=isolation_level,
        topics=[(topic, [(partition, offset, max_bytes)])])
    response = conn.call(request)
    (_topic, partitions), = response.topics
    part, = partitions
    # v4 layout: partition, error_code, highwater_offset, last_stable_offset, aborted_transactions, records
    return part[1], part[2], bytes(part[-1] or b'')


def next_offset_after(records):
    """Offset after the last complete v2 batch in raw records bytes (None when there is none)."""
    pos, nxt = 0, None
    while len(records) - pos >= 61:
        base_offset, length = struct.unpack_from('>qi', records, pos)
        if len(records) - pos < length + 12:
            break
        last_offset_delta = struct.unpack_from('>i', records, pos + 23)[0]
        nxt = base_offset + last_offset_delta + 1
        pos += length + 12
    return nxt


def fetch_all(conn, topic, partition, start=0, isolation_level=0):
    """Fetch from `start` until the high watermark; returns (list of raw records chunks, high watermark)."""
    chunks, offset = [], start
    for _ in range(1000):
        err, hw, records = fetch_raw(conn, topic, partition, offset, isolation_level=isolation_level)
        if err != 0:
            raise RuntimeError('Fetch %s[%d]@%d failed: %s' % (topic, partition, offset, error_name(err)))
        if records:
            chunks.append(records)
            nxt = next_offset_after(records)
            if nxt is None:
                raise RuntimeError('Fetch returned no complete batch at offset %d' % offset)
            offset = nxt
        if offset >= hw:
            return chunks, hw
    raise RuntimeError('Fetch did not reach the high watermark')


def produce_raw(conn, topic, partition, records, version=3, acks=-1):
    """One Produce (v3+) of raw record-batch bytes; returns (error_code, base_offset)."""
    request = ProduceRequest[version](
        transactional_id=None, required_acks=acks, timeout=10000, topics=[(topic, [(partition, records)])])
    response = conn.call(request)
    (_topic, partitions), = response.topics
    part, = partitions
    return part[1], part[2]
