#!/usr/bin/env node
// Runs the compiled extension (out/extension.js) under plain Node with a mock
// `vscode` module against test/fake-server.js: activation starts the server
// with the configured path and arguments, "Render composition" opens the
// server's YAML beside the editor, restart works, and a missing binary gives
// an error message instead of a crash. Run after `npm run compile`:
//
//     node test/smoke.js
'use strict';
const assert = require('assert');
const Module = require('module');
const path = require('path');

const mockPath = path.join(__dirname, 'mock', 'vscode.js');
const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  return request === 'vscode' ? mockPath : resolve.call(this, request, ...rest);
};

const vscode = require('vscode');
const ext = require('../out/extension.js');
const state = vscode.__state;

async function withExtension(settings, body) {
  state.settings = settings;
  state.errors.length = 0;
  const context = { subscriptions: [] };
  await ext.activate(context);
  try {
    await body();
  } finally {
    await ext.deactivate();
    context.subscriptions.forEach((d) => d.dispose());
  }
}

async function main() {
  const fake = path.join(__dirname, 'fake-server.js');
  const file = '/tmp/composition/main.hcl';

  await withExtension({ 'function-hcl.languageServerPath': fake }, async () => {
    assert.deepStrictEqual(state.errors, [], 'no error on start');
    vscode.window.activeTextEditor = { document: { uri: vscode.Uri.file(file) } };
    await vscode.commands.executeCommand('function-hcl.render');
    assert.deepStrictEqual(state.errors, [], 'no error on render');
    const doc = state.opened.at(-1);
    assert.strictEqual(doc.language, 'yaml');
    assert.strictEqual(doc.content, `# rendered\nuri: file://${file}\n`);
    assert.strictEqual(state.shown.at(-1).options.viewColumn, vscode.ViewColumn.Beside);

    await vscode.commands.executeCommand('function-hcl.restartServer');
    await vscode.commands.executeCommand('function-hcl.render');
    assert.deepStrictEqual(state.errors, [], 'render works after a restart');
    assert.strictEqual(state.opened.length, 2);
  });
  console.log('ok   start, render, restart');

  await withExtension({ 'function-hcl.languageServerPath': '/nonexistent/fn-hcl' }, async () => {
    assert.strictEqual(state.errors.length, 1, 'one error for a missing binary');
    assert.match(state.errors[0], /\/nonexistent\/fn-hcl/);
    await vscode.commands.executeCommand('function-hcl.render');
    assert.match(state.errors[1], /not running/);
  });
  console.log('ok   missing binary');

  const savedPath = process.env.PATH;
  process.env.PATH = path.join(__dirname, 'nowhere');
  try {
    await withExtension({}, async () => {
      assert.strictEqual(state.errors.length, 1);
      assert.match(state.errors[0], /`fn-hcl` was not found on PATH/);
    });
  } finally {
    process.env.PATH = savedPath;
  }
  console.log('ok   fn-hcl not on PATH');
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error('FAIL', err && err.stack ? err.stack : err);
    console.error(state.log.join('\n'));
    process.exit(1);
  },
);
