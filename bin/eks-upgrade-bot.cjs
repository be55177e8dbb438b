#!/usr/bin/env node
// The bot (`npm start`, the image's CMD): dist/main.cjs, the build of src/main.ts, loaded with V8's code cache (saved
// once the bot has been up for a few seconds, for the next start).
'use strict';
require('./load-built.cjs').loadBuilt('main', { saveAfterMs: 5_000 });
