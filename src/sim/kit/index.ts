/**
 * `@eks-upgrade-bot/sim/kit`: the simulator's test kit. A simulator per test (`useSim()` closes each one after its
 * test; vitest's afterEach) and the SDK config, environment and control-API calls that point at it; and fixtures and
 * facts tests build their inputs and expectations from: a Node object as the kubelet reports it, Slack's Block Kit
 * limits, signed Slack requests and interaction payloads, the version and add-on catalogs the simulated AWS answers
 * from, the rollback window and Auto Mode facts, the IAM policy evaluator, the request-count keys.
 * Tests and bench/ import it; the product does not.
 */

// A simulator in a test, and how clients (SDKs, the aws CLI, the bot's processes) reach it.
export { startSim, useSim, simClientConfig, simEnv, simControl, SIM_CREDENTIALS, SIM_REGION, type StartSimOptions } from './use-sim.js';

// How a simulator counts the requests it served (SimServer.requests), keyed as kubeRequestKey writes them.
export { kubeRequestKey, type RequestCounter, type RequestCounts } from '../request-counts.js';
// Which actions an IAM policy allows, as the simulated AWS judges them.
export { allowedActions, parsePolicyDocument, type PolicyDocument, type PolicyStatement } from '../iam/policy-document.js';

// Nodes: one as the kubelet reports it, and one vanishing from a running world (a real cluster would see it happen).
export { makeNode, type NodeSpecInput } from '../kube/index.js';
export { removeNode } from '../aws/node-factory.js';

// What the simulated AWS answers from.
export { amiIdFor, kubeletVersionFor, knownMinors } from '../aws/eks/version-catalog.js';
export { defaultAddonVersion } from '../aws/eks/addon-catalog.js';
/** How long an on-demand insights refresh takes on the simulator's clock (EKS: about a minute). */
export { INSIGHTS_REFRESH_MS } from '../aws/eks/insights.js';

// EKS version rollback and Auto Mode: the 7-day window of a cluster and what an Auto Mode node looks like.
export { ROLLBACK_WINDOW_MS, rollbackWindowOf, type RollbackWindow } from '../aws/eks/rollback-window.js';
export { isAutoModeNode, AUTO_MODE_TICK_MS } from '../aws/eks/auto-mode.js';

// Slack: Block Kit limits, signed requests, the payloads Slack posts to a bot.
export { checkMessageBlocks, checkModalView } from '../slack/web-api/block-kit-rules.js';
export { signSlackRequest, computeSlackSignature, type SlackSignatureHeaders } from '../slack/sign-slack-request.js';
export { buildSlashCommandBody, buildBlockActionsPayload, encodePayload, type SlashCommandFields } from '../slack/interaction-payloads.js';
