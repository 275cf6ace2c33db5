#!/usr/bin/env node
// A minimal LSP server for test/smoke.js: answers initialize, shutdown and the
// workspace command fn-hcl.render (echoing its argument as YAML), and exits
// with status 3 when not started with exactly the arguments ["lsp"].
'use strict';
const rpc = require('vscode-jsonrpc/node');

if (JSON.stringify(process.argv.slice(2)) !== '["lsp"]') {
  process.stderr.write(`fake-server: unexpected arguments ${JSON.stringify(process.argv.slice(2))}\n`);
  process.exit(3);
}
const conn = rpc.createMessageConnection(
  new rpc.StreamMessageReader(process.stdin),
  new rpc.StreamMessageWriter(process.stdout),
);
conn.onRequest('initialize', () => ({
  capabilities: { textDocumentSync: 2, executeCommandProvider: { commands: ['fn-hcl.render'] } },
  serverInfo: { name: 'fake-server' },
}));
conn.onRequest('workspace/executeCommand', (params) => {
  if (params.command !== 'fn-hcl.render') {
    throw new rpc.ResponseError(-32602, `unknown command ${params.command}`);
  }
  return `# rendered\nuri: ${params.arguments[0]}\n`;
});
conn.onRequest('shutdown', () => null);
conn.onNotification('exit', () => process.exit(0));
conn.listen();
