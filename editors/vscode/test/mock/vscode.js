// Just enough of the `vscode` module for vscode-languageclient and
// src/extension.ts to run under plain Node (test/smoke.js). Anything not
// modelled is a no-op that returns another no-op.
'use strict';

function noop(name) {
  const target = function () {};
  return new Proxy(target, {
    get(t, p) {
      if (p === 'then') return undefined;
      if (p === 'dispose') return () => {};
      if (!(p in t)) t[p] = noop(`${name}.${String(p)}`);
      return t[p];
    },
    apply: () => noop(`${name}()`),
    construct: () => noop(`new ${name}`),
  });
}

class Disposable {
  constructor(fn) { this.fn = fn; }
  static from(...items) { return new Disposable(() => items.forEach((d) => d && d.dispose && d.dispose())); }
  dispose() { if (this.fn) this.fn(); this.fn = undefined; }
}
class EventEmitter {
  constructor() { this.listeners = []; this.event = (f) => { this.listeners.push(f); return new Disposable(); }; }
  fire(e) { this.listeners.forEach((f) => f(e)); }
  dispose() { this.listeners = []; }
}
const event = () => new Disposable();
const uri = (p) => ({ scheme: 'file', fsPath: p, path: p, toString: () => `file://${p}` });

const state = {
  settings: {},
  commands: new Map(),
  errors: [],
  warnings: [],
  opened: [],
  shown: [],
  log: [],
};

const api = {
  version: '1.82.0',
  Disposable,
  EventEmitter,
  Uri: { file: uri, parse: (s) => uri(s.replace(/^file:\/\//, '')) },
  ViewColumn: { Active: -1, Beside: -2, One: 1 },
  ProgressLocation: { SourceControl: 1, Window: 10, Notification: 15 },
  window: {
    activeTextEditor: undefined,
    visibleTextEditors: [],
    createOutputChannel: (name) => ({
      name,
      append: (s) => state.log.push(s),
      appendLine: (s) => state.log.push(s),
      show() {}, hide() {}, clear() {}, replace() {}, dispose() {},
    }),
    showErrorMessage: async (m) => { state.errors.push(m); return undefined; },
    showWarningMessage: async (m) => { state.warnings.push(m); return undefined; },
    showInformationMessage: async () => undefined,
    withProgress: async (_options, task) => task({ report() {} }, { isCancellationRequested: false, onCancellationRequested: event }),
    showTextDocument: async (doc, options) => { state.shown.push({ doc, options }); return {}; },
    onDidChangeActiveTextEditor: event,
    onDidChangeVisibleTextEditors: event,
  },
  workspace: {
    workspaceFolders: undefined,
    textDocuments: [],
    getConfiguration: (section) => ({
      get: (key, fallback) => {
        const full = section ? `${section}.${key}` : key;
        return full in state.settings ? state.settings[full] : fallback;
      },
      has: () => false,
      inspect: () => undefined,
      update: async () => {},
    }),
    createFileSystemWatcher: () => ({ onDidCreate: event, onDidChange: event, onDidDelete: event, dispose() {} }),
    openTextDocument: async (options) => { state.opened.push(options); return options; },
    onDidChangeConfiguration: event,
    onDidOpenTextDocument: event,
    onDidCloseTextDocument: event,
    onDidChangeTextDocument: event,
    onDidSaveTextDocument: event,
    onWillSaveTextDocument: event,
    onDidChangeWorkspaceFolders: event,
  },
  commands: {
    registerCommand: (id, fn) => {
      if (state.commands.has(id)) throw new Error(`command '${id}' already exists`);
      state.commands.set(id, fn);
      return new Disposable(() => state.commands.delete(id));
    },
    executeCommand: async (id, ...args) => (state.commands.has(id) ? state.commands.get(id)(...args) : undefined),
  },
  __state: state,
};

module.exports = new Proxy(api, {
  get(t, p) {
    if (!(p in t)) t[p] = noop(String(p));
    return t[p];
  },
});
