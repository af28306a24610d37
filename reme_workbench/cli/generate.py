"""Commands made from the registry (`ops/registry.py`): each operation's request model gives
its command's arguments and options (names, types, defaults, help), and `--json` prints its
response model.

A command module declares the command with the operation it runs and writes only what
the registry cannot say: the text a person reads, and options of its own (`--embedder`,
`--check`, `--edit PATH=FILE`):

    @cli.command(cls=OperationCommand, operations=("graph",))
    def graph(obj: Ctx, call: Call):
        '''Describe the digest link graph ...'''
        answer = call.run(obj.workspace(obj.open()))
        if call.emit(answer):
            return
        click.echo(...)

The request model's options are made when the command is first parsed or asked for
`--help`, not when the program starts: the models import pydantic and the operations the
whole library, and `reme-workbench --help` must stay instant (tests/cli/test_cli_startup.py).
"""

from __future__ import annotations

import typing
from typing import Any

import click

from .app import Ctx, emit_json, wants_json

__all__ = ["OperationCommand", "Call"]


class Call:
    """One run of an operation command: the request's fields as the command line gave
    them, and how to print the answer."""

    def __init__(self, operations: dict, fields: dict[str, Any], as_json: bool | None) -> None:
        self.operations = operations  # name -> registry Operation, the command's first
        self.fields = fields
        self.as_json = as_json

    def operation(self, name: str | None = None):
        return self.operations[name] if name else next(iter(self.operations.values()))

    def request(self, name: str | None = None, **changes: Any):
        """The request of operation `name` (default the command's own) from the command
        line's fields, with `changes` (the fields a command fills by hand); a bad value is
        one `RemeError` naming the field."""
        from ..ops import build_request

        op = self.operation(name)
        values = {k: v for k, v in self.fields.items()
                  if k in op.request.model_fields and k not in op.cli.hand}
        values = {k: list(v) if isinstance(v, tuple) else v for k, v in values.items()}
        values = {k: v for k, v in values.items() if v is not None}  # the model's default
        return build_request(op.request, **{**values, **changes})

    def run(self, ws, request=None, progress=None, name: str | None = None):
        """Run the operation on the workspace (None for one that opens no vault)."""
        return self.operation(name).invoke(ws, self.request(name) if request is None else request,
                                           progress)

    @property
    def json(self) -> bool:
        return wants_json(self.as_json)

    def emit(self, answer, name: str | None = None) -> bool:
        """Print `answer` as the operation's response model when JSON is wanted (and say so)."""
        if not self.json:
            return False
        emit_json(dump(self.operation(name), answer))
        return True


def dump(op, answer) -> Any:
    """`answer` as JSON data through the operation's response model (a model or a list)."""
    from pydantic import TypeAdapter

    return TypeAdapter(op.response).dump_python(answer, mode="json")


class OperationCommand(click.Command):
    """A command made from registry operations (the first one's request gives the
    arguments; the others', those options the first lacks). The callback is called as
    `callback(obj, call, **its own options)`."""

    def __init__(self, name, *, operations: tuple[str, ...], callback: Any, **kwargs) -> None:
        self.operation_names = tuple(operations)
        self._made = False
        self._own = callback

        @click.pass_context
        def run(ctx: click.Context, **values: Any) -> Any:
            ops = self.operations()
            fields = {k: values.pop(k) for k in list(values) if k in self._field_names}
            call = Call(ops, fields, values.pop("as_json", None))
            return ctx.invoke(self._own, ctx.find_object(Ctx), call, **values)

        super().__init__(name, callback=run, **kwargs)

    def operations(self) -> dict:
        from ..ops import registry

        return {name: registry.operation(name) for name in self.operation_names}

    def _make(self) -> None:
        """Put the request models' parameters (and --json/--text) before the command's own."""
        if self._made:
            return
        self._made = True
        made: list[click.Parameter] = []
        names: set[str] = set()
        for op in self.operations().values():
            spec = op.cli
            fields = op.request.model_fields
            for name in [*spec.arguments, *(n for n in fields if n not in spec.arguments)]:
                if name in names or name in spec.hand:
                    continue
                names.add(name)
                made.append(parameter(name, fields[name], spec))
        made.append(click.Option(["--json/--text", "as_json"], default=None,
                                 help="Print JSON (default when stdout is not a terminal) or "
                                      "readable text."))
        self._field_names = names
        self.params[:0] = made

    def get_params(self, ctx: click.Context) -> list[click.Parameter]:
        self._make()
        return super().get_params(ctx)

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        self._make()
        return super().parse_args(ctx, args)


def parameter(name: str, info, spec) -> click.Parameter:
    """The click parameter of request field `name`: an argument when `spec.arguments` names
    it, else an option `--name` (`spec.names` may spell it otherwise); its type, default and
    help from the model (`spec.defaults` may give the command line's own default)."""
    annotation = _without_none(info.annotation)
    many = typing.get_origin(annotation) is list
    kind = _click_type(name, typing.get_args(annotation)[0] if many else annotation)
    required = info.is_required() and name not in spec.defaults
    default = spec.defaults.get(name, None if info.is_required() else info.get_default(
        call_default_factory=True))
    if name in spec.arguments:
        return click.Argument([name], type=kind, nargs=-1 if many else 1,
                              required=name not in spec.optional and not many,
                              metavar=spec.names.get(name))
    if many:
        raise TypeError(f"{name}: a list can be an argument or filled by hand on the command line")
    flag = spec.names.get(name, "--" + name.replace("_", "-"))
    if kind is bool:
        decls = [f"{flag}/--no-{flag[2:]}"] if default else [flag]
        return click.Option([*decls, name], is_flag=True, default=bool(default),
                            help=info.description, show_default=bool(default))
    if kind is int:  # the model's bounds, said by the option's help and checked by click
        low = next((m.ge for m in info.metadata if hasattr(m, "ge")), None)
        high = next((m.le for m in info.metadata if hasattr(m, "le")), None)
        kind = click.IntRange(low, high) if (low, high) != (None, None) else int
    return click.Option([flag, name], type=kind, required=required,
                        default=None if default in ((), [], {}) else default,
                        show_default=default not in (None, "", (), [], {}), help=info.description)


def _without_none(annotation):
    import types

    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        kept = [a for a in typing.get_args(annotation) if a is not type(None)]
        if len(kept) == 1:
            return kept[0]
    return annotation


def _click_type(name: str, annotation):
    """The click type of a field's annotation: a choice for a Literal, a range for a bounded
    int; a day is read as text (the model checks it)."""
    from datetime import date

    if typing.get_origin(annotation) is typing.Literal:
        return click.Choice([str(v) for v in typing.get_args(annotation)])
    if annotation in (str, date):
        return click.STRING
    if annotation is bool:
        return bool
    if annotation in (int, float):
        return annotation
    raise TypeError(f"{name}: the command line cannot take a {annotation!r}; fill it by hand "
                    "(registry Command.hand) from an option of the command's own")
