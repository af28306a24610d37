"""The command line is the registry's (`ops/registry.py`): every command is made from the
operations it runs, or listed there as a hand-made front-end command with the reason; a
command's arguments and options are its request model's fields; `--json` prints the
response model."""

from __future__ import annotations

import json

import click
import pytest
from click.testing import CliRunner
from pydantic import TypeAdapter

from reme_workbench.cli import cli
from reme_workbench.cli.generate import OperationCommand
from reme_workbench.ops import registry


def leaves(group: click.Group, prefix: tuple[str, ...] = ()):
    for name, command in sorted(group.commands.items()):
        if isinstance(command, click.Group):
            yield from leaves(command, (*prefix, name))
        else:
            yield (*prefix, name), command


def unlisted(group: click.Group) -> list[str]:
    """The commands of `group` the registry neither makes nor lists as hand-made."""
    made = {op.cli.path: op.name for op in registry.OPERATIONS if op.cli is not None}
    wrong = []
    for path, command in leaves(group):
        if isinstance(command, OperationCommand):
            ops = [registry.operation(name) for name in command.operation_names]
            if any(op.cli is None or op.cli.path != path for op in ops):
                wrong.append(f"{' '.join(path)} (made from {command.operation_names}, which "
                             "the registry puts elsewhere)")
        elif path not in registry.FRONT_END_COMMANDS or path in made:
            wrong.append(" ".join(path))
    return wrong


def test_every_command_is_the_registrys():
    assert unlisted(cli) == [], ("commands the registry does not know: declare an Operation "
                                 "with its Command, or list it in FRONT_END_COMMANDS with why")


def test_a_command_added_by_hand_alone_is_caught():
    """What the test above guards against: a command nobody declared."""
    group = click.Group("reme-workbench", commands=dict(cli.commands))

    @group.command("stray")
    def stray():
        """A command the registry does not know."""

    assert unlisted(group) == ["stray"]


def test_every_operation_with_a_command_is_on_the_command_line():
    commands = dict(leaves(cli))
    for op in registry.OPERATIONS:
        if op.cli is None:
            continue
        command = commands.get(op.cli.path)
        assert isinstance(command, OperationCommand), f"{op.name}: no command {op.cli.path}"
        assert op.name in command.operation_names, f"{op.cli.path} does not run {op.name}"


def test_a_commands_parameters_are_its_request_fields():
    """Each field of the request is an argument or option of the command (spelled as the
    registry says), with the model's help; only the fields the command fills by hand
    (`Command.hand`) are not."""
    commands = dict(leaves(cli))
    ctx = click.Context(cli)
    for op in registry.OPERATIONS:
        if op.cli is None:
            continue
        params = {p.name: p for p in commands[op.cli.path].get_params(ctx)}
        for name, info in op.request.model_fields.items():
            if name in op.cli.hand:
                continue
            assert name in params, f"{' '.join(op.cli.path)} does not take {op.name}'s {name}"
            param = params[name]
            if name in op.cli.arguments:
                assert isinstance(param, click.Argument), f"{name} of {op.name} is positional"
            else:
                assert param.help == info.description, f"{name} of {op.name}: help from the model"


@pytest.fixture
def vault(make_vault):
    return make_vault({
        "digest/wiki/alpha.md": "---\nname: alpha\ndescription: The alpha note.\n---\n"
                                "Alpha links [[digest/wiki/beta.md]].\n\n"
                                "derived_from:: [[daily/2026-10-05/log.md]]\n",
        "digest/wiki/beta.md": "---\nname: beta\ndescription: The beta note.\n---\nBeta.\n\n"
                               "derived_from:: [[daily/2026-10-05/log.md]]\n",
        "daily/2026-10-05/log.md": "Deployed payments-api with a canary.\n",
        "reme.toml": '[recall]\nembedder = "hashing"\n',
    })


# every operation command, as a person runs it with --json
JSON_RUNS = {
    "status": ["status"],
    "links": ["links", "digest/wiki/alpha.md"],
    "graph": ["graph", "--top", "1"],
    "note_context": ["note", "digest/wiki/alpha.md"],
    "health": ["health", "--no-report"],
    "list_proposals": ["proposals", "list"],
    "rename": ["rename", "digest/wiki/beta.md", "digest/wiki/gamma.md", "--dry-run"],
    "recover": ["recover"],
    "append_daily": ["append", "A new fact.", "--day", "2026-10-06"],
    "index": ["index"],
    "recall": ["recall", "canary"],
    "dream": ["dream", "--dry-run"],
    "consolidate": ["consolidate", "--dry-run", "--only", "communities"],
    "bridge": ["bridge", "--dry-run", "--communities"],
}


@pytest.mark.parametrize("name", sorted(JSON_RUNS))
def test_json_output_is_the_response_model(vault, name):
    op = registry.operation(name)
    result = CliRunner().invoke(cli, ["--vault", str(vault), *JSON_RUNS[name], "--json"])
    assert result.exit_code == 0, result.output
    TypeAdapter(op.response).validate_python(json.loads(result.stdout))


def test_json_of_init_import_and_the_proposals_decisions(vault, tmp_path):
    made = CliRunner().invoke(cli, ["init", str(tmp_path / "new"), "--json"])
    TypeAdapter(registry.operation("init").response).validate_python(json.loads(made.stdout))
    source = tmp_path / "notes"
    source.mkdir()
    (source / "Idea.md").write_text("An idea.\n", encoding="utf-8")
    imported = CliRunner().invoke(cli, ["--vault", str(vault), "import", str(source),
                                        "--dry-run", "--json"])
    assert imported.exit_code == 0, imported.output
    TypeAdapter(registry.operation("import_notes").response).validate_python(
        json.loads(imported.stdout))
    # a proposal to decide: health --fix holds one for the short link below
    (vault / "digest/wiki/delta.md").write_text(
        "---\nname: delta\ndescription: Delta.\n---\nSee [[alpha]].\n", encoding="utf-8")
    fixed = json.loads(CliRunner().invoke(cli, ["--vault", str(vault), "health", "--fix",
                                                "--no-report", "--json"]).stdout)
    pid = fixed["normalize"]["proposal"]
    for words, name in ((["show", pid], "show_proposal"), (["reject", pid], "reject_proposal")):
        shown = CliRunner().invoke(cli, ["--vault", str(vault), "proposals", *words, "--json"])
        assert shown.exit_code == 0, shown.output
        TypeAdapter(registry.operation(name).response).validate_python(json.loads(shown.stdout))


def test_recall_batch_prints_one_answer_of_the_response_model_a_line(vault, tmp_path):
    queries = tmp_path / "q.jsonl"
    queries.write_text('{"id": "a", "query": "canary"}\n{"id": "b", "query": "beta"}\n',
                       encoding="utf-8")
    result = CliRunner().invoke(cli, ["--vault", str(vault), "recall", "--queries", str(queries),
                                      "--json"])
    assert result.exit_code == 0, result.output
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    answers = TypeAdapter(registry.operation("recall_batch").response).validate_python(
        {"results": lines})
    assert [a.id for a in answers.results] == ["a", "b"] and answers.results[0].query == "canary"
