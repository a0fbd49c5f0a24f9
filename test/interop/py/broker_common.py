"""Shared by the broker interop peers (broker_confluent.py, broker_kafka_python.py).

A request is {"bootstrap": "host:port", "steps": [{"op": ..., ...}]}; the steps run in order
against the broker the test started, and the answer is {"results": [...]} with one entry per
step. A step that raises is reported as {"op", "exception"} and the script goes on, so the test
sees every failure, not only the first. Messages travel as
{"partition", "offset", "key", "value", "headers": [[name, hex]] | null, "timestamp"} with bytes
in hex (kp_common.py conventions); offsets of these tests stay far below 2^53, so they are plain
JSON numbers.
"""
import time
import traceback

from kp_common import read_input, write_output, tohex, unhex


def headers_in(m):
    """The [(name, bytes)] list a client takes, or None when the message has no headers."""
    h = m.get('headers')
    return None if h is None else [(k, unhex(v)) for k, v in h]


def headers_out(h):
    return None if h is None else [[k, tohex(v)] for k, v in h]


def message_out(partition, offset, key, value, headers, timestamp):
    return {'partition': partition, 'offset': offset, 'key': tohex(key), 'value': tohex(value),
            'headers': headers_out(headers), 'timestamp': timestamp}


class Deadline:
    """A step's time budget: the peers wait for data with bounded loops, never forever."""

    def __init__(self, seconds):
        self.end = time.monotonic() + seconds

    def left(self):
        return max(0.0, self.end - time.monotonic())

    def passed(self):
        return time.monotonic() >= self.end


def run_steps(ops):
    """Reads the request, runs each step with ops[step['op']](bootstrap, step), prints the results."""
    request = read_input()
    results = []
    for step in request['steps']:
        try:
            out = ops[step['op']](request['bootstrap'], step)
        except Exception as e:  # reported to the test, which fails on it with the traceback
            out = {'exception': '%s: %s' % (type(e).__name__, e), 'traceback': traceback.format_exc()}
        out['op'] = step['op']
        results.append(out)
    write_output({'results': results})
