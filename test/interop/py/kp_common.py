"""Shared helpers for the interop scripts: JSON over stdin/stdout, hex bytes, int64s as strings.

Every script reads one JSON document on stdin and writes one JSON document on stdout. Bytes travel
as lowercase hex (None stays null); int64 values travel as decimal strings so JavaScript never
rounds them.
"""
import json
import sys


def read_input():
    return json.loads(sys.stdin.buffer.read().decode('utf-8'))


def write_output(doc):
    sys.stdout.write(json.dumps(doc, ensure_ascii=True))
    sys.stdout.flush()


def unhex(s):
    return None if s is None else bytes.fromhex(s)


def tohex(b):
    return None if b is None else bytes(b).hex()


def codec_id(name):
    return {'none': 0, 'gzip': 1, 'snappy': 2, 'lz4': 3, 'zstd': 4}[name]
