"""SSL with the CA of `startBroker({ tls: 'self-signed' })` (an ECDSA P-256 chain): kafka-python and
confluent-kafka each produce one record trusting only that CA, kafka-python consumes both back, and
a client that trusts no CA fails. stdin: {"bootstrap", "cafile", "topic"}; stdout: JSON."""
import json
import ssl
import sys

from confluent_kafka import Producer
from kafka import KafkaConsumer, KafkaProducer
from kafka.errors import NoBrokersAvailable

cfg = json.load(sys.stdin)
bs, ca, topic = cfg['bootstrap'], cfg['cafile'], cfg['topic']
out = {}

p = KafkaProducer(bootstrap_servers=bs, security_protocol='SSL', ssl_cafile=ca)
p.send(topic, b'kafka-python').get(30)
p.close()

q = Producer({'bootstrap.servers': bs, 'security.protocol': 'ssl', 'ssl.ca.location': ca})
q.produce(topic, b'confluent')
out['confluentUndelivered'] = q.flush(30)

c = KafkaConsumer(topic, bootstrap_servers=bs, security_protocol='SSL', ssl_cafile=ca,
                  auto_offset_reset='earliest', consumer_timeout_ms=5000)
out['consumed'] = sorted(m.value.decode() for m in c)
c.close()

try:
    # the system's trust store only: the self-signed CA is not in it
    KafkaProducer(bootstrap_servers=bs, security_protocol='SSL', request_timeout_ms=3000, api_version_auto_timeout_ms=3000)
    out['untrustedRefused'] = False
except (NoBrokersAvailable, ssl.SSLError):
    out['untrustedRefused'] = True
print(json.dumps(out))
