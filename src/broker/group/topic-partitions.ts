/** Whether a topic-partition exists (Kafka checks commits and deletes against its metadata cache). */
import type { TopicRegistry } from '../topic-registry.js';

export function partitionExists(topics: TopicRegistry): (topic: string, partition: number) => boolean {
  return (topic, partition) => {
    const t = topics.get(topic);
    return t !== undefined && partition >= 0 && partition < t.partitions;
  };
}
