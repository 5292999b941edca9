"""A small checker of JSON values against the schemas of the published OpenAPI description."""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

TYPES: dict[str, tuple[type, ...]] = {
    "object": (dict,),
    "array": (list,),
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "null": (type(None),),
}


def _is(value: Any, kind: str) -> bool:
    if kind in {"integer", "number"} and isinstance(value, bool):
        return False
    return isinstance(value, TYPES[kind])


def errors(
    value: Any, schema: dict[str, Any], document: dict[str, Any], at: str = "$"
) -> list[str]:
    """Every way ``value`` breaks ``schema`` (the subset of JSON Schema the description uses)."""
    if "$ref" in schema:
        name = schema["$ref"].removeprefix("#/components/schemas/")
        return errors(value, document["components"]["schemas"][name], document, at)
    found: list[str] = []
    kinds = schema.get("type")
    if kinds is not None:
        kinds = [kinds] if isinstance(kinds, str) else kinds
        if not any(_is(value, k) for k in kinds):
            return [f"{at}: {value!r} is not of type {kinds}"]
    if "enum" in schema and value not in schema["enum"]:
        found.append(f"{at}: {value!r} is not one of {schema['enum']}")
    if isinstance(value, str):
        if "pattern" in schema and not re.search(schema["pattern"], value):
            found.append(f"{at}: {value!r} does not match {schema['pattern']}")
        if schema.get("format") == "date-time":
            try:
                datetime.fromisoformat(value)
            except ValueError:
                found.append(f"{at}: {value!r} is not a date-time")
    if _is(value, "number"):
        if "minimum" in schema and value < schema["minimum"]:
            found.append(f"{at}: {value} < {schema['minimum']}")
        if "maximum" in schema and value > schema["maximum"]:
            found.append(f"{at}: {value} > {schema['maximum']}")
    if isinstance(value, dict):
        properties = schema.get("properties", {})
        for name in schema.get("required", []):
            if name not in value:
                found.append(f"{at}: missing {name}")
        for name, item in value.items():
            if name in properties:
                found.extend(errors(item, properties[name], document, f"{at}.{name}"))
            elif schema.get("additionalProperties") is False:
                found.append(f"{at}: unexpected {name}")
    if isinstance(value, list) and "items" in schema:
        for n, item in enumerate(value):
            found.extend(errors(item, schema["items"], document, f"{at}[{n}]"))
    return found


def response_schema(document: dict[str, Any], path: str, method: str, status: int) -> Any:
    """The JSON schema of one documented answer (None for an answer without a body)."""
    operation = document["paths"][path][method.lower()]
    answer = operation["responses"][str(status)]
    content = answer.get("content")
    return None if content is None else content["application/json"]["schema"]


def check(document: dict[str, Any], path: str, method: str, status: int, body: Any) -> None:
    """Fail unless ``status`` is documented for the call and ``body`` fits its schema."""
    schema = response_schema(document, path, method, status)
    if schema is None:
        assert body is None, f"{method} {path} {status} documents no body"
        return
    problems = errors(body, schema, document)
    assert not problems, f"{method} {path} {status}: " + "; ".join(problems)
