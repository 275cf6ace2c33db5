#!/usr/bin/env python3
"""Static checks of the VS Code extension's manifest and TextMate grammar.

Standard library only. Run directly (exits 1 when a check fails):

    python3 editors/vscode/test/check_grammar.py

or collect the test_* functions with pytest:

    pytest editors/vscode/test/check_grammar.py
"""

import json
import sys
import traceback
from pathlib import Path

EXT_DIR = Path(__file__).resolve().parent.parent
PACKAGE_JSON = EXT_DIR / "package.json"
LANGUAGE_CONFIGURATION = EXT_DIR / "language-configuration.json"
EXTENSION_SOURCE = EXT_DIR / "src" / "extension.ts"

SETTINGS = {
    "function-hcl.languageServerPath": ("string", ""),
    "function-hcl.languageServerArgs": ("array", ["lsp"]),
    "function-hcl.trace.server": ("string", "off"),
}
COMMANDS = ["function-hcl.render", "function-hcl.restartServer"]


def load_json(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def package():
    return load_json(PACKAGE_JSON)


def hcl_grammar_contribution():
    grammars = [g for g in package()["contributes"]["grammars"] if g.get("language") == "hcl"]
    assert len(grammars) == 1, f"expected one grammar for language hcl, found {len(grammars)}"
    return grammars[0]


def grammar():
    return load_json(EXT_DIR / hcl_grammar_contribution()["path"])


def rules(node):
    """Every rule object below node (patterns, captures' patterns, repository entries)."""
    if isinstance(node, dict):
        yield node
        for key in ("patterns",):
            for child in node.get(key, []):
                yield from rules(child)
        for key in ("captures", "beginCaptures", "endCaptures", "whileCaptures"):
            for child in node.get(key, {}).values():
                yield from rules(child)
        for child in node.get("repository", {}).values():
            yield from rules(child)


def includes(node):
    return [r["include"] for r in rules(node) if "include" in r]


# --- tests -----------------------------------------------------------------


def test_json_files_parse():
    for path in (PACKAGE_JSON, LANGUAGE_CONFIGURATION, EXT_DIR / hcl_grammar_contribution()["path"]):
        load_json(path)


def test_includes_resolve():
    g = grammar()
    repository = g.get("repository", {})
    own_scope = g["scopeName"]
    bad = []
    for inc in includes(g):
        if inc in ("$self", "$base", own_scope):
            continue
        if inc.startswith("#"):
            if inc[1:] not in repository:
                bad.append(inc)
        else:
            # Another grammar's scope: nothing in this extension provides one.
            bad.append(inc)
    assert not bad, f"includes without a repository entry: {sorted(set(bad))}"


def test_repository_entries_are_used():
    g = grammar()
    used = {inc[1:] for inc in includes(g) if inc.startswith("#")}
    unused = sorted(set(g.get("repository", {})) - used)
    assert not unused, f"repository entries never included: {unused}"


def test_rules_are_well_formed():
    g = grammar()
    bad = []
    for name, rule in g.get("repository", {}).items():
        for r in rules(rule):
            if "begin" in r and "end" not in r and "while" not in r:
                bad.append(f"{name}: begin without end")
            if "end" in r and "begin" not in r:
                bad.append(f"{name}: end without begin")
            if "match" in r and "begin" in r:
                bad.append(f"{name}: both match and begin")
    assert not bad, bad


def test_scope_name_matches_package_json():
    contribution = hcl_grammar_contribution()
    g = grammar()
    assert g["scopeName"] == contribution["scopeName"], (g["scopeName"], contribution["scopeName"])
    assert g["scopeName"] in ("source.hcl", "source.hcl.function-hcl"), g["scopeName"]


def test_language_contribution():
    pkg = package()
    languages = [lang for lang in pkg["contributes"]["languages"] if lang["id"] == "hcl"]
    assert len(languages) == 1, "language hcl is not contributed exactly once"
    assert ".hcl" in languages[0]["extensions"]
    assert (EXT_DIR / languages[0]["configuration"]).is_file()
    assert "onLanguage:hcl" in pkg["activationEvents"]
    assert pkg["main"].startswith("./out/"), pkg["main"]


def test_settings_exist():
    properties = package()["contributes"]["configuration"]["properties"]
    for name, (kind, default) in SETTINGS.items():
        assert name in properties, f"setting {name} missing"
        assert properties[name]["type"] == kind, (name, properties[name]["type"])
        assert properties[name]["default"] == default, (name, properties[name]["default"])
    assert properties["function-hcl.trace.server"]["enum"] == ["off", "messages", "verbose"]


def test_commands_declared_and_registered():
    declared = {c["command"] for c in package()["contributes"]["commands"]}
    source = EXTENSION_SOURCE.read_text(encoding="utf-8")
    for command in COMMANDS:
        assert command in declared, f"command {command} not declared in package.json"
        suffix = command.split(".", 1)[1]
        assert f"`${{SECTION}}.{suffix}`" in source or f"'{command}'" in source, (
            f"command {command} not registered in src/extension.ts"
        )


def test_language_configuration():
    conf = load_json(LANGUAGE_CONFIGURATION)
    assert conf["comments"]["lineComment"] == "#"
    assert conf["comments"]["blockComment"] == ["/*", "*/"]
    opens = {p["open"] for p in conf["autoClosingPairs"]}
    assert {"{", "[", "(", '"', "${"} <= opens, opens


def main():
    tests = [(name, fn) for name, fn in sorted(globals().items()) if name.startswith("test_") and callable(fn)]
    failed = 0
    for name, fn in tests:
        try:
            fn()
        except Exception:  # noqa: BLE001 - report every failing check
            failed += 1
            print(f"FAIL {name}")
            traceback.print_exc(limit=1)
        else:
            print(f"ok   {name}")
    print(f"{len(tests) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
