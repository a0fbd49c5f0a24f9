/**
 * Every topic's LogConfig has one hidden class, however many topics the broker made before it
 * (log-config.ts, copyLogConfig): V8's %HaveSameMap needs --allow-natives-syntax, so the check runs
 * in a child process.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { REPO_ROOT } from '../helpers/paths.js';

const DIST = join(REPO_ROOT, 'dist', 'src');

test('the LogConfigs of the 1st and the 50th topic made from the same defaults have the same hidden class', () => {
  const script = `
    const { logConfigFromProperties, DEFAULT_LOG_CONFIG } = await import(${JSON.stringify(join(DIST, 'storage', 'log-config.js'))});
    // the broker's defaults are themselves a config made from properties, as in config.ts
    const defaults = logConfigFromProperties({ 'retention.ms': '86400000' }, DEFAULT_LOG_CONFIG);
    const configs = Array.from({ length: 50 }, () => logConfigFromProperties({}, defaults));
    const withOverride = logConfigFromProperties({ 'segment.bytes': '104857600' }, defaults);
    console.log(JSON.stringify({
      sameAsFirst: configs.filter((c) => %HaveSameMap(c, configs[0])).length,
      override: %HaveSameMap(withOverride, configs[0]),
    }));
  `;
  const r = spawnSync(process.execPath, ['--allow-natives-syntax', '--input-type=module', '-e', script], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(JSON.parse(r.stdout), { sameAsFirst: 50, override: true });
});
