/**
 * The import rules `npm test` enforces (script `check:imports`, dependency-cruiser). A file's folder names its role,
 * and a file imports only from its own tier or lower ones:
 *
 *   entry points   src/main.ts, src/start-bot.ts, src/cli/, src/wiring/ (composition entry points share), src/demo/, src/playground/, bench/, test/, bin/
 *   handlers       commands/, jobs/
 *   adapters       src/aws/, src/guards/ (guard sources), src/kube/, src/slack/, src/cluster-reader/, src/store/ (Redis-backed stores), src/waivers/store/, src/audit/, src/prometheus/, src/doctor/
 *   pure core      src/planning/, src/report/, src/waivers/policy/, src/waivers/request/
 *   base           src/ports/, src/domain/, src/config/, src/log/, src/kube-types/, src/waivers/model/
 *
 * src/waivers/ is the one feature folder that spans tiers: a waiver lives in one place, each of its subfolders in its
 * tier (a file directly in src/waivers/ has none, and fails the check).
 *
 * Clients are built only in entry points (`construction` below, checked by test/support/check-imports.mjs): a Redis
 * connection, a BullMQ object, an SDK client or a WebClient is created in an entry point and passed in.
 *
 * No file cycles and no folder cycles anywhere. The simulator (src/sim, the workspace package @eks-upgrade-bot/sim)
 * is reached only through its entry points: src/sim/twin/index.ts (@eks-upgrade-bot/sim/twin, the twin runtime, the
 * only part the product in src/, commands/ and jobs/ may import), src/sim/services/index.ts (the fake services; also
 * src/demo and src/playground, which run the bot against them), src/sim/kit/index.ts (the test kit) and
 * src/sim/index.ts (the union, for test/ and bench/). It imports no product code except src/kube-types. Its own
 * tests are in test/sim/: they may reach its insides, and the in-process ones (test/sim/unit/) import no product
 * code either; test/sim/integration/ drives it through the product's adapters, as the bot does.
 *
 * TypeScript 7 ships no JavaScript compiler API, so sources are parsed with swc (@swc/core).
 */
const ENTRY = ['^src/main\\.ts$', '^src/start-bot\\.ts$', '^src/cli/', '^src/wiring/', '^src/demo/', '^src/playground/', '^bench/', '^test/', '^bin/'];
const HANDLERS = ['^commands/', '^jobs/'];
const ADAPTERS = ['^src/aws/', '^src/guards/', '^src/kube/', '^src/slack/', '^src/cluster-reader/', '^src/store/', '^src/waivers/store/', '^src/audit/', '^src/prometheus/', '^src/doctor/'];
const CORE = ['^src/planning/', '^src/report/', '^src/waivers/policy/', '^src/waivers/request/'];
const BASE = ['^src/ports/', '^src/domain/', '^src/config/', '^src/log/', '^src/kube-types/', '^src/waivers/model/'];
const SIM = '^src/sim/';
const SIM_TWIN = '^src/sim/twin/index\\.ts$';
const SIM_ENTRIES = ['^src/sim/index\\.ts$', SIM_TWIN, '^src/sim/services/index\\.ts$', '^src/sim/kit/index\\.ts$'];
// Entry points that run the bot against the fake services rather than rehearse on a twin.
const SIM_TOOLS = ['^src/demo/', '^src/playground/'];
// The simulator's own tests, which may reach its insides; the in-process ones hold to its no-product-code rule.
const SIM_TESTS = '^test/sim/';
const SIM_UNIT_TESTS = '^test/sim/unit/';
const TIERED = [...ENTRY, ...HANDLERS, ...ADAPTERS, ...CORE, ...BASE, SIM];

const upward = (name, from, to, tier) => ({
  name,
  severity: 'error',
  comment: `${tier} may import only its own tier or lower ones (see .dependency-cruiser.cjs); move the shared piece down, or pass it in from the entry point`,
  from: { path: from },
  to: { path: to },
});

module.exports = {
  forbidden: [
    upward('base-imports-upward', BASE, [...ENTRY, ...HANDLERS, ...ADAPTERS, ...CORE], 'The base (src/ports, src/domain, src/config, src/log, src/kube-types, src/waivers/model)'),
    upward('core-imports-upward', CORE, [...ENTRY, ...HANDLERS, ...ADAPTERS], 'The pure core (src/planning, src/report, src/waivers/policy, src/waivers/request)'),
    upward('adapter-imports-upward', ADAPTERS, [...ENTRY, ...HANDLERS], 'An adapter (src/aws, src/kube, src/slack, src/cluster-reader, src/store, src/waivers/store, src/audit, src/prometheus)'),
    upward('handler-imports-entry-point', HANDLERS, ENTRY, 'A handler (commands/, jobs/)'),
    {
      name: 'no-file-cycles',
      severity: 'error',
      comment: 'Files import each other in a cycle: move what both need into a third file, or pass it in',
      from: {},
      to: { circular: true },
    },
    {
      name: 'no-folder-cycles',
      severity: 'error',
      comment: 'Folders import each other in a cycle: one of them belongs in a lower tier, or takes the other as a parameter',
      scope: 'folder',
      from: { pathNot: SIM },
      to: { circular: true },
    },
    {
      name: 'sim-only-through-entry',
      severity: 'error',
      comment: 'Code outside the simulator reaches it only through its entry points: import from @eks-upgrade-bot/sim (src/sim/index.ts), exporting what you need there, or from the part it belongs to (@eks-upgrade-bot/sim/twin, /services, /kit: src/sim/<part>/index.ts)',
      from: { pathNot: [SIM, SIM_TESTS] },
      to: { path: SIM, pathNot: SIM_ENTRIES },
    },
    {
      name: 'product-imports-only-the-twin',
      severity: 'error',
      comment: 'The product (src/, commands/, jobs/) imports only the twin runtime of the simulator, @eks-upgrade-bot/sim/twin (src/sim/twin/index.ts): the fake services and the test kit are for test/, bench/, src/demo and src/playground. Export what a rehearsal needs from src/sim/twin/index.ts',
      from: { path: '^(src|commands|jobs)/', pathNot: [SIM, ...SIM_TOOLS] },
      to: { path: SIM, pathNot: SIM_TWIN },
    },
    {
      name: 'sim-imports-product',
      severity: 'error',
      comment: 'The simulator imports no product code (a test oracle must not share the product\'s bugs); shared types live in src/kube-types',
      from: { path: [SIM, SIM_UNIT_TESTS] },
      to: { path: '^(src|commands|jobs|test|bench|bin)/', pathNot: [SIM, SIM_UNIT_TESTS, '^src/kube-types/'] },
    },
    {
      name: 'file-outside-the-tiers',
      severity: 'error',
      comment: 'This folder has no tier yet: put the file in a folder listed in .dependency-cruiser.cjs, or add the folder to its tier there',
      from: { path: '^(src|commands|jobs)/', pathNot: TIERED },
      to: {},
    },
    {
      name: 'import-outside-the-tiers',
      severity: 'error',
      comment: 'This folder has no tier yet: put the file in a folder listed in .dependency-cruiser.cjs, or add the folder to its tier there',
      from: {},
      to: { path: '^(src|commands|jobs)/', pathNot: TIERED },
    },
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      comment: 'This import resolves to no file or package',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  // Not dependency-cruiser's: test/support/check-imports.mjs reads it. Outside entry points and the simulator, no
  // file constructs a client (`constructors`) or calls a factory that opens one (`factoryCalls`), except the
  // factories themselves (`factories`), each called only from entry points. A line comment or a doc-comment line
  // is not code and is skipped.
  construction: {
    roots: ['src', 'commands', 'jobs'],
    exempt: [...ENTRY, SIM],
    factories: {
      '^src/store/redis-connection\\.ts$': 'connectRedis and bullConnection: the one place ioredis clients are made',
      '^src/store/queue-kit\\.ts$': 'the QueueKit an entry point builds: its connections, queues, workers and flow producers',
      '^src/store/connect-fast-redis\\.ts$': "the CLI's fail-fast connection",
      '^src/waivers/store/connect-waiver-store\\.ts$': "the CLI's waiver store on that connection",
      '^src/slack/slack-web-client\\.ts$': "the bot's WebClient",
      '^src/aws/[^/]+-sdk-adapter\\.ts$': 'SDK clients, built lazily per target by a factory the entry point calls',
      '^src/aws/cloudwatch-guard-reader\\.ts$': 'CloudWatch clients, likewise',
      '^src/doctor/redis-checks\\.ts$': "doctor's Redis probe: the one-shot connection is the check",
    },
    constructors: '\\bnew\\s+(Queue|Worker|FlowProducer|QueueEvents|Redis|Cluster|WebClient|[A-Z][A-Za-z0-9]*Client)\\s*(<[^>()]*>)?\\s*\\(',
    factoryCalls: '(?<!function\\s+)\\b(connectRedis|bullConnection|createQueueKit|connectFastRedis|connectWaiverStore|createSlackWebClient|create(Eks|Ssm|Ec2|AutoScaling|Kube)PortFactory|createCloudWatchGuardReader|createAwsProbePort)\\s*\\(',
    advice: 'create it in an entry point (src/main.ts, src/start-bot.ts, src/cli/, src/wiring/, src/demo/, src/playground/, bench/, bin/) and pass it in: Redis connections and BullMQ objects come from the QueueKit the entry point builds (src/store/queue-kit.ts), SDK adapters from the factories it calls',
  },
  // Not dependency-cruiser's either: every Block Kit block, element, text object and view is written in
  // src/report/blocks/ (the rest of the product composes them from there). The simulator's fake Slack reads blocks.
  blockKit: {
    roots: ['src', 'commands', 'jobs'],
    // The playground's page reads blocks to draw them as HTML; it builds none.
    exempt: ['^src/report/blocks/', '^src/playground/web/', SIM],
    literal: "\\btype:\\s*['\"](section|actions|input|header|context|divider|modal|home|datepicker|timepicker|button|image|rich_text|static_select|multi_static_select|plain_text_input|overflow|checkboxes|radio_buttons|mrkdwn|plain_text)['\"]",
    advice: 'build it with a function in src/report/blocks/ (block-kit-limits.ts has sections, context lines and headers) and call that',
  },
  // No source folder holds more than maxFiles
  // files directly; test folders (test/) and fixtures are exempt, since a test file sits beside the
  // others of its project. `enforced` is set by the last step of `node bin/relayout/relayout.mjs`, once the files
  // are in their feature folders; a tree given with --root is always held to it.
  folderSize: { maxFiles: 20, roots: ['src', 'commands', 'jobs', 'bench', 'bin'], exempt: '(^|/)(test|fixtures|node_modules)(/|$)', enforced: true },
  options: {
    parser: 'swc',
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    doNotFollow: { path: 'node_modules' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'] },
    // Planted violations the rules' own test cruises on purpose.
    exclude: { path: '^test/fixtures/import-rules/' },
  },
};
