import { describe, expect, it } from 'vitest';
import { decideBlueGreenPhase } from '../../src/planning/deciders/decide-blue-green-phase.js';

/** The blue/green executor's decider: the one next thing to do, from what the job saved and what EKS says now. */
describe('decideBlueGreenPhase', () => {
  const to = '1.31';
  it('walks create → wait → delete → follow → finish as the facts change', () => {
    expect(decideBlueGreenPhase({ saved: {}, blue: { version: '1.30', status: 'ACTIVE' }, to })).toBe('create-green');
    expect(decideBlueGreenPhase({ saved: { green: 'ng-1-31' }, blue: { version: '1.30', status: 'ACTIVE' }, green: { status: 'CREATING' }, to })).toBe('wait-green');
    expect(decideBlueGreenPhase({ saved: { green: 'ng-1-31', greenReady: true }, blue: { version: '1.30', status: 'ACTIVE' }, green: { status: 'ACTIVE' }, to })).toBe('delete-blue');
    expect(decideBlueGreenPhase({ saved: { green: 'ng-1-31', greenReady: true, deleteIssued: true }, blue: { version: '1.30', status: 'DELETING' }, green: { status: 'ACTIVE' }, to })).toBe('follow-deletion');
    expect(decideBlueGreenPhase({ saved: { green: 'ng-1-31', greenReady: true, deleteIssued: true }, green: { status: 'ACTIVE' }, to })).toBe('follow-deletion');
    expect(decideBlueGreenPhase({ saved: { green: 'ng-1-31', greenReady: true, deleteIssued: true, blueGone: true }, green: { status: 'ACTIVE' }, to })).toBe('finish');
  });

  it('a re-run after a crash finds the clone by its saved name and never creates or deletes twice', () => {
    // The name was saved, then the worker died before CreateNodegroup answered: the clone exists, so wait for it.
    expect(decideBlueGreenPhase({ saved: { green: 'ng-1-31' }, blue: { version: '1.30', status: 'ACTIVE' }, green: { status: 'CREATING' }, to })).toBe('wait-green');
    // Someone else already deletes blue: follow that deletion instead of asking to delete it.
    expect(decideBlueGreenPhase({ saved: { green: 'ng-1-31', greenReady: true }, blue: { version: '1.30', status: 'DELETING' }, green: { status: 'ACTIVE' }, to })).toBe('follow-deletion');
  });

  it('nothing to do for a group already at the target; a failure when both groups are gone', () => {
    expect(decideBlueGreenPhase({ saved: {}, blue: { version: '1.31', status: 'ACTIVE' }, to })).toBe('already-at-target');
    expect(decideBlueGreenPhase({ saved: { green: 'ng-1-31' }, to })).toBe('both-gone');
  });
});
