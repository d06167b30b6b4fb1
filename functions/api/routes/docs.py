"""The OpenAPI document and Swagger UI, generated from the routes when first asked for.

Powertools' `enable_swagger` would import its OpenAPI models (about a third of the
function's cold import) on every cold start; these routes import them only when someone
reads the documentation.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

from aws_lambda_powertools.event_handler import APIGatewayHttpResolver, Response, content_types

from functions.api.contract import with_error_bodies

TITLE = "Knobelcup"
DESCRIPTION = "Tournaments of Mäxchen, Mariechen and 42 muss kommen, turn by turn."


def register(app: APIGatewayHttpResolver) -> None:
    """Serve `GET /openapi.json` and `GET /docs` from `app`'s routes."""

    @cache
    def document() -> str:
        from aws_lambda_powertools.event_handler.openapi.models import (  # noqa: PLC0415
            HTTPBearer,
        )

        document = app.get_openapi_schema(
            title=TITLE,
            version="1",
            description=DESCRIPTION,
            security_schemes={"bearerAuth": HTTPBearer(description="organizer or player token")},
        ).model_dump(mode="json", by_alias=True, exclude_none=True)
        return json.dumps(with_error_bodies(document), separators=(",", ":"))

    @app.get("/openapi.json", include_in_schema=False)
    def openapi_document() -> Response[str]:
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
        return Response(200, content_types.TEXT_HTML, page)
