/**
 * DescribeUserScramCredentials (50) and AlterUserScramCredentials (51), v0 (KafkaApis
 * .handleDescribeUserScramCredentialsRequest, ScramImage.describe, ScramControlManager.alterCredentials).
 * The client sends the salted password (Hi(password, salt, iterations)); the broker keeps salt,
 * iterations, StoredKey and ServerKey in the credential store. Kafka's per-user errors and texts:
 * DUPLICATE_RESOURCE for a user named twice, RESOURCE_NOT_FOUND for a missing credential,
 * UNACCEPTABLE_CREDENTIAL for an empty name or iterations outside 4096..16384,
 * UNSUPPORTED_SASL_MECHANISM for an unknown mechanism. Valid alterations are applied together.
 *
 * Describe needs DESCRIBE on the cluster (`KafkaApis`), Alter ALTER (`ControllerApis`); denied, the
 * requests' `getErrorResponse`: CLUSTER_AUTHORIZATION_FAILED at the top and in one result per named
 * user for Describe (Kafka's leaves those results' user empty), in one result per distinct user,
 * sorted, with the controller's message for Alter.
 */
import { ErrorCode } from '../../protocol/error-codes.js';
import {
  AlterUserScramCredentials,
  type AlterUserScramCredentialsRequest,
  type AlterUserScramCredentialsResponse,
  type AlterUserScramCredentialsResult,
} from '../../protocol/schemas/alter-user-scram-credentials.js';
import {
  DescribeUserScramCredentials,
  type DescribeUserScramCredentialsRequest,
  type DescribeUserScramCredentialsResponse,
  type DescribeUserScramCredentialsResult,
} from '../../protocol/schemas/describe-user-scram-credentials.js';
import type { ApiHandler } from '../handler.js';
import { AclOperation } from '../auth/acl.js';
import { clusterAuthorized, clusterOperationDeniedMessage } from '../auth/checks.js';
import {
  credentialFromSaltedPassword,
  SCRAM_MAX_ITERATIONS,
  SCRAM_MECHANISMS,
  SCRAM_MIN_ITERATIONS,
  scramMechanismByType,
  type ScramCredential,
  type ScramMechanismName,
} from '../security/scram-formatter.js';

export const describeUserScramCredentialsHandler: ApiHandler<DescribeUserScramCredentialsRequest, DescribeUserScramCredentialsResponse> = {
  api: DescribeUserScramCredentials,
  minVersion: 0,
  maxVersion: 0,
  handle(request, ctx) {
    const store = ctx.broker.scramCredentials;
    const requested = request.users;
    if (!clusterAuthorized(ctx, AclOperation.DESCRIBE)) {
      const errorCode = ErrorCode.CLUSTER_AUTHORIZATION_FAILED;
      return { throttleTimeMs: 0, errorCode, errorMessage: null, results: (requested ?? []).map(() => ({ user: '', errorCode, errorMessage: null, credentialInfos: [] })) };
    }
    const results: DescribeUserScramCredentialsResult[] = [];
    const describe = (user: string): DescribeUserScramCredentialsResult => {
      const mechs = store.mechanisms(user);
      if (mechs === undefined || mechs.size === 0) {
        return { user, errorCode: ErrorCode.RESOURCE_NOT_FOUND, errorMessage: `Attempt to describe a user credential that does not exist: ${user}`, credentialInfos: [] };
      }
      const credentialInfos = [...mechs].map(([m, c]) => ({ mechanism: SCRAM_MECHANISMS[m].type, iterations: c.iterations }));
      return { user, errorCode: ErrorCode.NONE, errorMessage: null, credentialInfos };
    };
    if (requested === null || requested.length === 0) {
      for (const user of store.userNames()) results.push(describe(user));
    } else {
      const counts = new Map<string, number>();
      for (const { name } of requested) counts.set(name, (counts.get(name) ?? 0) + 1);
      for (const [user, n] of counts) {
        results.push(
          n > 1
            ? { user, errorCode: ErrorCode.DUPLICATE_RESOURCE, errorMessage: `Cannot describe SCRAM credentials for the same user twice in a single request: ${user}`, credentialInfos: [] }
            : describe(user),
        );
      }
    }
    return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, errorMessage: null, results };
  },
};

export const alterUserScramCredentialsHandler: ApiHandler<AlterUserScramCredentialsRequest, AlterUserScramCredentialsResponse> = {
  api: AlterUserScramCredentials,
  minVersion: 0,
  maxVersion: 0,
  handle(request, ctx) {
    const store = ctx.broker.scramCredentials;
    if (!clusterAuthorized(ctx, AclOperation.ALTER)) {
      const errorMessage = clusterOperationDeniedMessage(ctx);
      const users = [...new Set([...request.deletions, ...request.upsertions].map((x) => x.name))].sort();
      return { throttleTimeMs: 0, results: users.map((user) => ({ user, errorCode: ErrorCode.CLUSTER_AUTHORIZATION_FAILED, errorMessage })) };
    }
    const seen = new Map<string, number>();
    for (const x of [...request.deletions, ...request.upsertions]) seen.set(x.name, (seen.get(x.name) ?? 0) + 1);
    const errors: AlterUserScramCredentialsResult[] = [];
    const duplicateReported = new Set<string>();
    const error = (user: string, errorCode: number, errorMessage: string): void => void errors.push({ user, errorCode, errorMessage });
    /** The entry's mechanism if it may be applied, after Kafka's checks in its order. */
    const check = (name: string, type: number): ScramMechanismName | undefined => {
      if ((seen.get(name) ?? 0) > 1) {
        if (!duplicateReported.has(name)) error(name, ErrorCode.DUPLICATE_RESOURCE, 'A user credential cannot be altered twice in the same request');
        duplicateReported.add(name);
        return undefined;
      }
      if (name === '') return void error(name, ErrorCode.UNACCEPTABLE_CREDENTIAL, 'Username must not be empty');
      const mech = scramMechanismByType(type);
      if (mech === undefined) return void error(name, ErrorCode.UNSUPPORTED_SASL_MECHANISM, 'Unknown SCRAM mechanism');
      return mech;
    };
    const deletions: { user: string; mech: ScramMechanismName }[] = [];
    for (const d of request.deletions) {
      const mech = check(d.name, d.mechanism);
      if (mech === undefined) continue;
      if (store.get(d.name, mech) === undefined) error(d.name, ErrorCode.RESOURCE_NOT_FOUND, 'Attempt to delete a user credential that does not exist');
      else deletions.push({ user: d.name, mech });
    }
    const upsertions: { user: string; mech: ScramMechanismName; credential: ScramCredential }[] = [];
    for (const u of request.upsertions) {
      const mech = check(u.name, u.mechanism);
      if (mech === undefined) continue;
      if (u.iterations < SCRAM_MIN_ITERATIONS) error(u.name, ErrorCode.UNACCEPTABLE_CREDENTIAL, 'Too few iterations');
      else if (u.iterations > SCRAM_MAX_ITERATIONS) error(u.name, ErrorCode.UNACCEPTABLE_CREDENTIAL, 'Too many iterations');
      else upsertions.push({ user: u.name, mech, credential: credentialFromSaltedPassword(mech, u.saltedPassword, u.salt, u.iterations) });
    }
    store.apply(deletions, upsertions);
    const ok = (user: string): AlterUserScramCredentialsResult => ({ user, errorCode: ErrorCode.NONE, errorMessage: null });
    return { throttleTimeMs: 0, results: [...deletions.map((d) => ok(d.user)), ...upsertions.map((u) => ok(u.user)), ...errors] };
  },
};
