/**
 * The AWS SDK warns on start that its releases after early January 2027 will need Node ≥22. We pin Node 20 on
 * purpose (the README asks for Node 20 only) and the notice buries the demo's and the CLI's output, so entry points import this first to
 * set the SDK's own switch for it (read when the first client is built); an operator's explicit value wins.
 */
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
