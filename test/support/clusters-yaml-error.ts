import { expect } from 'vitest';
import { ConfigError, parseClustersYaml } from '../../src/config/clusters-config.js';

/** The sentence a clusters.yaml text is refused with (the test fails when the text is accepted or throws otherwise). */
export function clustersYamlErrorOf(text: string): string {
  try {
    parseClustersYaml(text);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error('expected the file to be refused');
}
