"""librdkafka's in-memory mock cluster (C, test.mock.num.brokers) as a bench peer.

An rd_kafka_t created with test.mock.num.brokers=1 starts a mock broker inside librdkafka; its
address is the mock cluster's bootstrap list. This prints {"bootstrap": "host:port"} and keeps the
mock alive until stdin closes, so another process can drive it over the wire.

The handle is made through ctypes on the very librdkafka.so.1 confluent-kafka is linked to (checked
by version below), because confluent-kafka-python does not expose the mock API and the mock needs
it for one thing: librdkafka 2.0.2's mock serves no CreateTopics (rdkafka_mock_handlers.c has no
handler for it) and auto-creates unknown topics with its default of 4 partitions
(rdkafka_mock.c: mcluster->defaults.partition_cnt = 4), settable by no configuration property.
rd_kafka_mock_topic_create() (rdkafka_mock.h) creates a topic with any partition count, so stdin
takes commands, one JSON object a line:
  {"createTopic": "name", "partitions": 100, "replicationFactor": 1}
    -> {"createTopic": "name", "partitions": 100, "error": null | "message"}
"""
import ctypes
import json
import sys

from confluent_kafka import libversion

RD_KAFKA_PRODUCER = 0

lib = ctypes.CDLL('librdkafka.so.1')


def declare(name, restype, *argtypes):
    f = getattr(lib, name)
    f.restype, f.argtypes = restype, list(argtypes)


P, S, INT = ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int
declare('rd_kafka_version_str', S)
declare('rd_kafka_conf_new', P)
declare('rd_kafka_conf_set', INT, P, S, S, S, ctypes.c_size_t)
declare('rd_kafka_new', P, INT, P, S, ctypes.c_size_t)
declare('rd_kafka_handle_mock_cluster', P, P)
declare('rd_kafka_mock_cluster_bootstraps', S, P)
declare('rd_kafka_mock_topic_create', INT, P, S, INT, INT)
declare('rd_kafka_err2str', S, INT)
declare('rd_kafka_destroy', None, P)


def fail(msg):
    sys.stderr.write(f'rdkafka_mock_cluster.py: {msg}\n')
    sys.exit(1)


version = lib.rd_kafka_version_str().decode()
if version != libversion()[0]:
    fail(f'ctypes loaded librdkafka {version}, confluent-kafka uses {libversion()[0]}')

errstr = ctypes.create_string_buffer(512)
conf = lib.rd_kafka_conf_new()
for k, v in (('test.mock.num.brokers', '1'), ('log_level', '0')):
    if lib.rd_kafka_conf_set(conf, k.encode(), v.encode(), errstr, len(errstr)) != 0:
        fail(f'{k}={v}: {errstr.value.decode()}')
rk = lib.rd_kafka_new(RD_KAFKA_PRODUCER, conf, errstr, len(errstr))  # takes ownership of conf
if not rk:
    fail(f'rd_kafka_new: {errstr.value.decode()}')
mcluster = lib.rd_kafka_handle_mock_cluster(rk)
if not mcluster:
    fail('test.mock.num.brokers=1 started no mock cluster')
bootstrap = lib.rd_kafka_mock_cluster_bootstraps(mcluster).decode()
print(json.dumps({"bootstrap": bootstrap, "librdkafka": version}), flush=True)

for line in sys.stdin:
    if not line.strip():
        continue
    cmd = json.loads(line)
    if 'createTopic' not in cmd:
        fail(f'unknown command {line.strip()}')
    err = lib.rd_kafka_mock_topic_create(mcluster, cmd['createTopic'].encode(), cmd['partitions'],
                                         cmd.get('replicationFactor', 1))
    print(json.dumps({"createTopic": cmd['createTopic'], "partitions": cmd['partitions'],
                      "error": lib.rd_kafka_err2str(err).decode() if err else None}), flush=True)

lib.rd_kafka_destroy(rk)
