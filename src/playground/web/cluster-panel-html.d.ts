/** Types for cluster-panel-html.js (a plain ES module the browser loads as is). */
export function nodeGroupLabel(node: { nodegroup?: string; nodepool?: string; computeType?: string }): string;
export function renderClusterPanel(state: unknown, name?: string): string;
