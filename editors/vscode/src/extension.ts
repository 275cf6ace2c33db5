// VS Code client for the function-hcl language server (`fn-hcl lsp`).
//
// The extension only starts the server and wires a few commands; every
// language feature (diagnostics, completion, hover, formatting, inlay hints,
// ...) comes from the server.

import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import {
  ExecuteCommandRequest,
  LanguageClient,
  LanguageClientOptions,
  RevealOutputChannelOn,
  ServerOptions,
} from 'vscode-languageclient/node';

/** Configuration section, also the client id (so `function-hcl.trace.server` works). */
const SECTION = 'function-hcl';
const DEFAULT_BINARY = 'fn-hcl';
const DEFAULT_ARGS = ['lsp'];
/** The server's workspace command that renders a composition directory. */
const SERVER_RENDER_COMMAND = 'fn-hcl.render';

let client: LanguageClient | undefined;
let outputChannel: vscode.OutputChannel | undefined;
let traceChannel: vscode.OutputChannel | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  outputChannel = vscode.window.createOutputChannel('function-hcl Language Server');
  traceChannel = vscode.window.createOutputChannel('function-hcl Language Server Trace');
  context.subscriptions.push(outputChannel, traceChannel);

  context.subscriptions.push(
    vscode.commands.registerCommand(`${SECTION}.render`, renderComposition),
    vscode.commands.registerCommand(`${SECTION}.restartServer`, restartServer),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (
        e.affectsConfiguration(`${SECTION}.languageServerPath`) ||
        e.affectsConfiguration(`${SECTION}.languageServerArgs`)
      ) {
        void restartServer();
      }
    }),
  );

  await startServer();
}

export async function deactivate(): Promise<void> {
  await stopServer();
}

interface ServerCommand {
  command: string;
  args: string[];
}

/** The binary and arguments from the settings, or undefined (after telling the user) when the binary is missing. */
async function resolveServerCommand(): Promise<ServerCommand | undefined> {
  const config = vscode.workspace.getConfiguration(SECTION);
  const configured = expandPath((config.get<string>('languageServerPath') ?? '').trim());
  const args = config.get<string[]>('languageServerArgs') ?? DEFAULT_ARGS;
  const wanted = configured === '' ? DEFAULT_BINARY : configured;

  // A bare name is looked up on PATH; anything with a separator is a path.
  const found = wanted.includes('/') || wanted.includes('\\') ? await executable(wanted) : await findOnPath(wanted);
  if (found === undefined) {
    const where =
      configured === ''
        ? `\`${DEFAULT_BINARY}\` was not found on PATH`
        : `\`${configured}\` (function-hcl.languageServerPath) does not exist or is not executable`;
    const openSettings = 'Open Settings';
    const showLog = 'Show Log';
    outputChannel?.appendLine(`Cannot start the language server: ${where}.`);
    outputChannel?.appendLine(`PATH=${process.env.PATH ?? ''}`);
    void vscode.window
      .showErrorMessage(
        `function-hcl: cannot start the language server: ${where}. ` +
          'Install fn-hcl (for example `cargo install --path crates/fnhcl-cli` in function-hcl-rs) ' +
          'or set function-hcl.languageServerPath.',
        openSettings,
        showLog,
      )
      .then((choice) => {
        if (choice === openSettings) {
          void vscode.commands.executeCommand('workbench.action.openSettings', `${SECTION}.languageServerPath`);
        } else if (choice === showLog) {
          outputChannel?.show(true);
        }
      });
    return undefined;
  }
  return { command: found, args };
}

async function startServer(): Promise<void> {
  const server = await resolveServerCommand();
  if (server === undefined) {
    return;
  }
  outputChannel?.appendLine(`Starting ${server.command} ${server.args.join(' ')}`);

  // No `transport` on purpose: with `TransportKind.stdio` the client would
  // append `--stdio` to the arguments, which `fn-hcl lsp` does not need.
  const executableOptions = { command: server.command, args: server.args, options: { env: process.env } };
  const serverOptions: ServerOptions = { run: executableOptions, debug: executableOptions };

  const watch = (glob: string) => vscode.workspace.createFileSystemWatcher(glob);
  const clientOptions: LanguageClientOptions = {
    documentSelector: [{ scheme: 'file', language: 'hcl' }],
    synchronize: {
      // Files the server reads besides the open documents: other program
      // files, the composition, CRD sources and the live-preview inputs.
      fileEvents: [
        watch('**/*.hcl'),
        watch('**/composition.yaml'),
        watch('**/.crd-sources.yaml'),
        watch('**/.crds/**'),
        watch('**/xr.yaml'),
        watch('**/observed.yaml'),
        watch('**/extra-resources.yaml'),
      ],
    },
    outputChannel,
    traceOutputChannel: traceChannel,
    revealOutputChannelOn: RevealOutputChannelOn.Never,
  };

  try {
    const newClient = new LanguageClient(SECTION, 'function-hcl Language Server', serverOptions, clientOptions);
    client = newClient;
    await newClient.start();
  } catch (err) {
    client = undefined;
    const message = err instanceof Error ? err.message : String(err);
    outputChannel?.appendLine(`The language server failed to start: ${message}`);
    const showLog = 'Show Log';
    void vscode.window
      .showErrorMessage(`function-hcl: the language server (${server.command}) failed to start: ${message}`, showLog)
      .then((choice) => {
        if (choice === showLog) {
          outputChannel?.show(true);
        }
      });
  }
}

async function stopServer(): Promise<void> {
  const old = client;
  client = undefined;
  if (old === undefined) {
    return;
  }
  try {
    await old.dispose();
  } catch (err) {
    outputChannel?.appendLine(`Stopping the language server: ${err instanceof Error ? err.message : String(err)}`);
  }
}

async function restartServer(): Promise<void> {
  await stopServer();
  await startServer();
}

/** `function-hcl: Render composition`: the desired state of the active editor's composition, as YAML beside it. */
async function renderComposition(): Promise<void> {
  const editor = vscode.window.activeTextEditor;
  if (editor === undefined || editor.document.uri.scheme !== 'file') {
    void vscode.window.showWarningMessage('function-hcl: open a file of a composition directory to render it.');
    return;
  }
  if (client === undefined || !client.isRunning()) {
    void vscode.window.showErrorMessage(
      'function-hcl: the language server is not running (see "function-hcl: Restart language server").',
    );
    return;
  }
  const running = client;
  const uri = editor.document.uri.toString();
  let result: unknown;
  try {
    result = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Window, title: 'function-hcl: rendering' },
      () => running.sendRequest(ExecuteCommandRequest.type, { command: SERVER_RENDER_COMMAND, arguments: [uri] }),
    );
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    void vscode.window.showErrorMessage(`function-hcl: render failed: ${message}`);
    return;
  }
  if (typeof result !== 'string') {
    void vscode.window.showErrorMessage('function-hcl: render returned no output.');
    return;
  }
  const doc = await vscode.workspace.openTextDocument({ language: 'yaml', content: result });
  await vscode.window.showTextDocument(doc, { viewColumn: vscode.ViewColumn.Beside, preview: false });
}

/** Expands a leading `~` and `${workspaceFolder}` / `${userHome}` in a configured path. */
function expandPath(p: string): string {
  if (p === '') {
    return p;
  }
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? '';
  let out = p.replace(/\$\{workspaceFolder\}/g, folder).replace(/\$\{userHome\}/g, os.homedir());
  if (out === '~' || out.startsWith('~/') || out.startsWith('~\\')) {
    out = path.join(os.homedir(), out.slice(1));
  }
  if (!path.isAbsolute(out) && (out.includes('/') || out.includes('\\')) && folder !== '') {
    out = path.resolve(folder, out);
  }
  return out;
}

/** `file` if it is an executable regular file. */
async function executable(file: string): Promise<string | undefined> {
  try {
    const stat = await fs.promises.stat(file);
    if (!stat.isFile()) {
      return undefined;
    }
    if (process.platform !== 'win32') {
      await fs.promises.access(file, fs.constants.X_OK);
    }
    return file;
  } catch {
    return undefined;
  }
}

/** The first `name` on PATH (with the PATHEXT suffixes on Windows). */
async function findOnPath(name: string): Promise<string | undefined> {
  const dirs = (process.env.PATH ?? '').split(path.delimiter).filter((d) => d !== '');
  const suffixes =
    process.platform === 'win32'
      ? ['', ...(process.env.PATHEXT ?? '.EXE;.CMD;.BAT;.COM').split(';').filter((s) => s !== '')]
      : [''];
  for (const dir of dirs) {
    for (const suffix of suffixes) {
      const found = await executable(path.join(dir, name + suffix));
      if (found !== undefined) {
        return found;
      }
    }
  }
  return undefined;
}
