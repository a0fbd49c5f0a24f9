/**
 * Producer sequence arithmetic with Kafka's wrap-around (Kafka `DefaultRecordBatch`
 * `incrementSequence`/`decrementSequence`): sequences live in [0, Int.MAX] and Int.MAX + 1 wraps to 0.
 */
const INT32_MAX = 0x7fffffff;

export function incrementSequence(sequence: number, increment: number): number {
  if (sequence > INT32_MAX - increment) return increment - (INT32_MAX - sequence) - 1;
  return sequence + increment;
}

export function decrementSequence(sequence: number, decrement: number): number {
  if (sequence < decrement) return INT32_MAX - (decrement - sequence) + 1;
  return sequence - decrement;
}
