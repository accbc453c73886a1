"""Checking a game's options against the options it declares."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from adjudicator.api import JSON, OptionSpec, SetupError


def resolve_options(specs: Sequence[OptionSpec], given: Mapping[str, JSON]) -> dict[str, JSON]:
    """Defaults overlaid with ``given``; raise :class:`SetupError` for an unknown
    name, a value outside the declared choices, or a value of the wrong type."""
    by_name = {spec.name: spec for spec in specs}
    unknown = sorted(set(given) - set(by_name))
    if unknown:
        raise SetupError(f"unknown option(s) {', '.join(unknown)}; known: {', '.join(sorted(by_name))}")
    resolved: dict[str, JSON] = {spec.name: spec.default for spec in specs}
    for name, value in given.items():
        spec = by_name[name]
        if spec.choices and value not in spec.choices:
            choices = ", ".join(repr(c) for c in spec.choices)
            raise SetupError(f"option {name} must be one of {choices}, not {value!r}")
        if spec.default is not None and not _same_type(spec.default, value):
            raise SetupError(f"option {name} must be {type(spec.default).__name__}, not {value!r}")
        resolved[name] = value
    return resolved


def _same_type(default: JSON, value: JSON) -> bool:
    if isinstance(default, bool) or isinstance(value, bool):
        return isinstance(default, bool) and isinstance(value, bool)
    if isinstance(default, (int, float)):
        return isinstance(value, (int, float))
    return isinstance(value, type(default))


def describe_options(specs: Sequence[OptionSpec]) -> str:
    """The options as help text, one paragraph each."""
    lines = []
    for spec in specs:
        choice = f" (one of: {', '.join(str(c) for c in spec.choices)})" if spec.choices else ""
        lines.append(f"  {spec.name} = {spec.default!r}{choice}\n      {spec.help}")
    return "\n".join(lines)


def help_with_options(text: str, specs: Sequence[OptionSpec]) -> str:
    """A game's help ``text`` followed by its options (what ``GameRules.help_text`` returns)."""
    return text + "\nOptions:\n" + describe_options(specs) + "\n"
