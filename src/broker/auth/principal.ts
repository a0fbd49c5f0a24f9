/** `KafkaPrincipal.ANONYMOUS`: the principal of a PLAINTEXT connection (and of SSL without a client certificate). */
export const ANONYMOUS_PRINCIPAL = 'User:ANONYMOUS';
