import { describe, expect, it } from 'vitest';
import { decideNodegroupAction, NEW_LAUNCH_TEMPLATE_VERSION } from '../../src/planning/deciders/decide-nodegroup-action.js';

/** The node-group decider's custom-AMI order (issue 13): a version clusters.yaml names, else one made from its AMI source, else a gate. */
const custom = { name: 'custom-ng', version: '1.25', amiType: 'CUSTOM', releaseVersion: 'ami-0old', launchTemplate: { id: 'lt-01', name: 'custom-lt', version: '1' } };

describe('decideNodegroupAction: custom AMI first', () => {
  it('without a version or an AMI source in clusters.yaml: a gate', () => {
    expect(decideNodegroupAction(custom, { strategy: 'in-place' }, '1.26').action).toBe('custom-ami-gate');
  });

  it('with an AMI source: a roll to a new version the step creates, or to the version that already carries the AMI', () => {
    const policy = { strategy: 'in-place' as const, amiParameter: '/my/amis/{minor}/image_id' };
    const planned = decideNodegroupAction(custom, policy, '1.26');
    expect(planned).toMatchObject({ action: 'roll-launch-template', request: { launchTemplate: { id: 'lt-01', version: NEW_LAUNCH_TEMPLATE_VERSION } } });
    expect(planned.reason).toContain('SSM /my/amis/1.26/image_id');
    expect(decideNodegroupAction(custom, policy, '1.26', '3')).toMatchObject({ action: 'roll-launch-template', request: { launchTemplate: { version: '3' } } });
    expect(decideNodegroupAction({ ...custom, launchTemplate: { ...custom.launchTemplate, version: '3' } }, policy, '1.26', '3').action).toBe('at-target');
  });

  it('a launchTemplateVersion in clusters.yaml wins over an AMI source', () => {
    expect(decideNodegroupAction(custom, { strategy: 'in-place', launchTemplateVersion: '7', ami: { '1.26': 'ami-0new' } }, '1.26', '3')).toMatchObject({ action: 'roll-launch-template', request: { launchTemplate: { version: '7' } } });
  });
});
