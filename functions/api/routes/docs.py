"""The OpenAPI document and Swagger UI, generated from the routes when first asked for.

Powertools' `enable_swagger` would import its OpenAPI models (about a third of the
function's cold import) on every cold start; these routes import them only when someone
reads the documentation.
"""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path

from aws_lambda_powertools.event_handler import APIGatewayHttpResolver, Response, content_types

from functions.api.contract import with_error_bodies
from functions.api.security_headers import content_security_policy, inline_script_hashes

TITLE = "Knobelcup"
DESCRIPTION = "Tournaments of Mäxchen, Mariechen and 42 muss kommen, turn by turn."


@cache
def openapi_document(app: APIGatewayHttpResolver) -> str:
    """`app`'s OpenAPI document as JSON, made once (on the first read of the docs, or of
    a path no route takes: see `allowed_methods`)."""
    from aws_lambda_powertools.event_handler.openapi.models import HTTPBearer  # noqa: PLC0415

    document = app.get_openapi_schema(
        title=TITLE,
        version="1",
        description=DESCRIPTION,
        security_schemes={"bearerAuth": HTTPBearer(description="organizer or player token")},
    ).model_dump(mode="json", by_alias=True, exclude_none=True)
    return json.dumps(with_error_bodies(document), separators=(",", ":"))


Methods = frozenset[str]


@cache
def _path_patterns(app: APIGatewayHttpResolver) -> tuple[tuple[re.Pattern[str], Methods], ...]:
    paths = json.loads(openapi_document(app))["paths"]
    return tuple((_template(path), frozenset(map(str.upper, ops))) for path, ops in paths.items())


def _template(path: str) -> re.Pattern[str]:
    """`/tournaments/{tournament_id}` as a pattern: each parameter one path segment."""
    escaped = re.escape(path)  # `{tournament_id}` becomes `\{tournament_id\}`
    return re.compile("^" + re.sub(r"\\\{[^/]+?\\\}", "[^/]+", escaped) + "$")


def allowed_methods(app: APIGatewayHttpResolver, path: str) -> Methods:
    """The methods the API documents for `path` (none for a path it does not know)."""
    matching = (methods for pattern, methods in _path_patterns(app) if pattern.match(path))
    return next(matching, frozenset())


def register(app: APIGatewayHttpResolver) -> None:
    """Serve `GET /openapi.json` and `GET /docs` from `app`'s routes."""

    def document() -> str:
        return openapi_document(app)

    @app.get("/openapi.json", include_in_schema=False)
    def openapi_json() -> Response[str]:
        return Response(200, content_types.APPLICATION_JSON, document())

    @app.get("/docs", include_in_schema=False)
    def swagger_ui() -> Response[str]:
        from aws_lambda_powertools.event_handler.openapi import swagger_ui  # noqa: PLC0415

        assets = Path(swagger_ui.__file__).parent
        page = swagger_ui.generate_swagger_html(
            document().replace("</", "<\\/"),  # the spec is inlined in a <script>
            (assets / "swagger-ui-bundle.min.js").read_text(encoding="utf-8"),
            (assets / "swagger-ui.min.css").read_text(encoding="utf-8"),
            swagger_base_url="",
            oauth2_config=None,
        )
        # Swagger UI runs inline scripts: the policy lets those run, by their hashes, alone
        policy = content_security_policy(script_hashes=inline_script_hashes(page))
        return Response(
            200, content_types.TEXT_HTML, page, headers={"Content-Security-Policy": policy}
        )
