import { App } from '@slack/bolt';

/**
 * The ack baseline (bench P1): a Bolt app on the same machine that acknowledges every slash command and does nothing
 * else, behind the same HTTP receiver as the bot. PORT, SLACK_SIGNING_SECRET, SLACK_API_URL from the environment.
 */
const port = Number(process.env.PORT ?? 3999);
const app = new App({
  token: 'xoxb-baseline',
  signingSecret: process.env.SLACK_SIGNING_SECRET ?? 'baseline-secret',
  // Bolt asks Slack who it is (auth.test), as the bot does: the fake Slack answers.
  clientOptions: { slackApiUrl: process.env.SLACK_API_URL },
  customRoutes: [{ path: '/healthz', method: ['GET'], handler: (_req, res) => void res.writeHead(200).end('{"ok":true}') }],
});
app.command(/.*/, async ({ ack }) => {
  await ack();
});
await app.start(port);
process.on('SIGTERM', () => void app.stop().then(() => process.exit(0)));
