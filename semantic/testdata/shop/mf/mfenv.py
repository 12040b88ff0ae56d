"""Makes MetricFlow importable from its source tree with Debian's python3 packages.

MetricFlow is not installable here (no PyPI), so regen.sh points MF_SRC at a
checkout of github.com/dbt-labs/metricflow (the tag in ../METRICFLOW_VERSION).
Debian 12 lacks two of its dependencies, so this module stands in for them
before MetricFlow is imported:

- rapidfuzz: used only to suggest close names in error messages; a difflib
  stand-in gives the same interface. It never changes compiled SQL.
- typing_extensions 4.4 lacks the names of typing that 4.7 re-exports; they
  are copied from typing.
- referencing (needed by the JSON-schema pre-check of YAML documents): the
  pre-check is skipped. Every document is still parsed by MetricFlow's
  pydantic models, transformed and checked by its semantic validations.
"""

from __future__ import annotations

import difflib
import os
import sys
import tempfile
import types


def _install_rapidfuzz_stand_in() -> None:
    try:
        import rapidfuzz  # noqa: F401

        return
    except ImportError:
        pass
    fuzz = types.ModuleType("rapidfuzz.fuzz")

    def ratio(a: str, b: str, **_: object) -> float:
        return 100.0 * difflib.SequenceMatcher(None, a, b).ratio()

    fuzz.ratio = ratio  # type: ignore[attr-defined]
    fuzz.partial_ratio = ratio  # type: ignore[attr-defined]
    fuzz.token_set_ratio = ratio  # type: ignore[attr-defined]
    fuzz.WRatio = ratio  # type: ignore[attr-defined]
    process = types.ModuleType("rapidfuzz.process")

    def extract(query, choices, scorer=ratio, limit=5, **_: object):  # type: ignore[no-untyped-def]
        scored = [(c, scorer(query, c), i) for i, c in enumerate(choices)]
        scored.sort(key=lambda t: -t[1])
        return scored[:limit] if limit else scored

    process.extract = extract  # type: ignore[attr-defined]
    root = types.ModuleType("rapidfuzz")
    root.fuzz = fuzz  # type: ignore[attr-defined]
    root.process = process  # type: ignore[attr-defined]
    sys.modules.update({"rapidfuzz": root, "rapidfuzz.fuzz": fuzz, "rapidfuzz.process": process})


def _skip_json_schema_precheck() -> None:
    try:
        import referencing  # noqa: F401

        return
    except ImportError:
        pass

    class _NoCheck:
        def validate(self, _: object) -> None:
            return None

    schemas = types.ModuleType("metricflow_semantic_interfaces.parsing.schemas")
    for name in (
        "metric_validator",
        "project_configuration_validator",
        "saved_query_validator",
        "semantic_model_validator",
    ):
        setattr(schemas, name, _NoCheck())
    sys.modules["metricflow_semantic_interfaces.parsing.schemas"] = schemas


def _complete_typing_extensions() -> None:
    """Debian 12's typing_extensions (4.4) does not re-export typing's names, as 4.7 and later do."""
    import typing

    import typing_extensions

    for name in getattr(typing, "__all__", ()):
        if not hasattr(typing_extensions, name):
            setattr(typing_extensions, name, getattr(typing, name))


def _register_distribution(src: str) -> None:
    """Gives the source tree the package metadata an install would.

    MetricFlow stamps its own version into project_configuration
    (importlib.metadata.version("metricflow")), which needs a dist-info.
    """
    about: dict = {}
    with open(os.path.join(src, "metricflow", "__about__.py")) as f:
        exec(f.read(), about)
    meta = tempfile.mkdtemp(prefix="mf-dist-")
    info = os.path.join(meta, f"metricflow-{about['__version__']}.dist-info")
    os.mkdir(info)
    with open(os.path.join(info, "METADATA"), "w") as f:
        f.write(f"Metadata-Version: 2.1\nName: metricflow\nVersion: {about['__version__']}\n")
    sys.path.insert(0, meta)


def setup() -> str:
    """Puts MF_SRC on sys.path and installs the stand-ins; returns MF_SRC."""
    src = os.environ.get("MF_SRC", "/work/mf")
    if not os.path.isdir(os.path.join(src, "metricflow")):
        sys.exit(f"MF_SRC={src} is not a MetricFlow source tree (see regen.sh)")
    sys.path.insert(0, src)
    _register_distribution(src)
    _complete_typing_extensions()
    _install_rapidfuzz_stand_in()
    _skip_json_schema_precheck()
    return src
