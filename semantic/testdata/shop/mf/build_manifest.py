"""Builds ../semantic_manifest.json from the YAML in ../model with MetricFlow's own parser.

dbt cannot be installed here, so instead of `dbt parse` this uses the parser,
transformations and validations that MetricFlow ships (its vendored copy of
dbt-semantic-interfaces), and writes the manifest in the JSON shape that
`dbt parse` writes to target/semantic_manifest.json.
"""

from __future__ import annotations

import json
import os
import sys

import mfenv

mfenv.setup()

from metricflow_semantic_interfaces.parsing.dir_to_model import (  # noqa: E402
    parse_directory_of_yaml_files_to_semantic_manifest,
)
from metricflow_semantic_interfaces.transformations.add_input_metric_measures import (  # noqa: E402
    AddInputMetricMeasuresRule,
)
from metricflow_semantic_interfaces.transformations.semantic_manifest_transformer import (  # noqa: E402
    PydanticSemanticManifestTransformer,
)
from metricflow_semantics.model.dbt_manifest_parser import (  # noqa: E402
    parse_manifest_from_dbt_generated_manifest,
)
from metricflow_semantic_interfaces.validations.semantic_manifest_validator import (  # noqa: E402
    SemanticManifestValidator,
)

from pydantic.json import pydantic_encoder  # noqa: E402

from metricflow_semantic_interfaces.parsing.yaml_loader import (  # noqa: E402
    PARSING_CONTEXT_KEY,
    ParsingContext,
)

HERE = os.path.dirname(os.path.abspath(__file__))
SHOP = os.path.dirname(HERE)


def _encode(obj: object) -> object:
    # The YAML loader leaves its file positions in free-form maps (config.meta).
    if isinstance(obj, ParsingContext):
        return None
    return pydantic_encoder(obj)


def _strip_parsing_context(value: object) -> object:
    if isinstance(value, dict):
        out = {k: _strip_parsing_context(v) for k, v in value.items() if k != PARSING_CONTEXT_KEY}
        if isinstance(out.get("repo_file_path"), str):
            out["repo_file_path"] = os.path.relpath(out["repo_file_path"], SHOP)
        return out
    if isinstance(value, list):
        return [_strip_parsing_context(v) for v in value]
    return value


def main() -> None:
    parsed = parse_directory_of_yaml_files_to_semantic_manifest(
        os.path.join(SHOP, "model"), apply_transformations=False
    ).semantic_manifest
    # dbt writes what the user wrote, with each metric's input_measures filled
    # in (dbt-core's parser does that); MetricFlow applies its other
    # transformations when it loads the file.
    manifest = PydanticSemanticManifestTransformer.transform(parsed, ((AddInputMetricMeasuresRule(),),))
    # Validate it the way MetricFlow loads a dbt manifest.
    loaded = parse_manifest_from_dbt_generated_manifest(manifest.json(encoder=_encode))
    issues = SemanticManifestValidator().validate_semantic_manifest(loaded)
    for issue in issues.all_issues:
        print(issue.as_readable_str(), file=sys.stderr)
    if issues.has_blocking_issues:
        sys.exit("the shop manifest does not validate")
    doc = _strip_parsing_context(json.loads(manifest.json(encoder=_encode)))
    # dbt names each relation fully; MetricFlow's parser leaves it to the loader.
    for sm in doc["semantic_models"]:
        nr = sm["node_relation"]
        nr["relation_name"] = f"`{nr['database']}`.`{nr['schema_name']}`.`{nr['alias']}`"
    for ts in doc["project_configuration"]["time_spines"]:
        nr = ts["node_relation"]
        nr["relation_name"] = f"`{nr['database']}`.`{nr['schema_name']}`.`{nr['alias']}`"
    for m in doc["metrics"]:
        # dbt-core fills input_measures from a set: sorted, the file is stable.
        m["type_params"]["input_measures"].sort(key=lambda x: x["name"])
    doc["semantic_models"].sort(key=lambda m: m["name"])
    doc["metrics"].sort(key=lambda m: m["name"])
    with open(os.path.join(SHOP, "semantic_manifest.json"), "w") as f:
        json.dump(doc, f, indent=2, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
