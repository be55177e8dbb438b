import { describe, expect, it } from 'vitest';
import { failed, notChecked, passed } from '../../src/ports/doctor-check.js';
import { doctorFailed, renderDoctorText } from '../../src/report/render-doctor.js';

describe('renderDoctorText', () => {
  it('prints one line per check — ✔, ✘ with its fix, ? with why — and counts them', () => {
    const checks = [
      passed('aws', 'aws.identity', 'signed in as arn:aws:sts::111122223333:assumed-role/eks-upgrade-bot/x'),
      failed('redis', 'redis.maxmemory-policy', 'maxmemory-policy is allkeys-lru', 'set maxmemory-policy noeviction', ['maxmemory-policy noeviction']),
      notChecked('slack', 'slack.auth', 'SLACK_BOT_TOKEN is not set'),
    ];
    expect(renderDoctorText(checks)).toBe(
      '✔ aws.identity: signed in as arn:aws:sts::111122223333:assumed-role/eks-upgrade-bot/x\n' +
        '✘ redis.maxmemory-policy: maxmemory-policy is allkeys-lru\n' +
        '    fix: set maxmemory-policy noeviction\n' +
        '? slack.auth: not checked: SLACK_BOT_TOKEN is not set\n' +
        '\n' +
        '1 passed, 1 failed, 1 not checked\n',
    );
    expect(doctorFailed(checks)).toBe(true);
    expect(doctorFailed([checks[0], checks[2]])).toBe(false);
  });
});
