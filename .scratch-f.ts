import { startSimulator } from './src/sim/sim-server.js';
const sim = await startSimulator({ scenario: 'workshop', port: 0, speed: 1 });
const store = sim.world.kube('eksworkshop-eksctl')!;
for (let i = 0; i < 30; i++) {
  const pods = store.list('pods').filter((p: any) => p.metadata.namespace === 'assets');
  console.log(i, pods.map((p: any) => `${p.metadata.name} ${p.status?.phase} ${p.spec?.nodeName} ${p.spec?.schedulerName}`), store.list('nodes').filter((n: any) => n.metadata.name.startsWith('fargate')).length);
  if (pods.some((p: any) => p.spec?.nodeName)) break;
  await new Promise(r => setTimeout(r, 500));
}
await sim.close();
