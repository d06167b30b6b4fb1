"""The OpenAPI document and Swagger UI come from the routes themselves."""

from __future__ import annotations

from apiclient import Stack


def test_the_openapi_document_lists_every_route_with_its_bodies(stack: Stack) -> None:
    answer = stack.api.call("GET", "/openapi.json")
    assert answer.status == 200
    document = answer.body
    assert document["openapi"].startswith("3.1")
    paths = document["paths"]
    assert "/tournaments" in paths
    assert "post" in paths["/tournaments/{tournament_id}/tables/{table}/actions"]
    schemas = document["components"]["schemas"]
    assert {"CreateTournament", "SubmitAction", "TableView", "AuditLog"} <= schemas.keys()
    assert document["components"]["securitySchemes"]["bearerAuth"]["scheme"] == "bearer"
    assert "/docs" not in paths and "/openapi.json" not in paths


def test_swagger_ui_is_served_with_its_assets_inlined(stack: Stack) -> None:
    answer = stack.api.call("GET", "/docs")
    assert answer.status == 200
    assert answer.headers["content-type"].startswith("text/html")
    assert "SwaggerUIBundle" in answer.raw and "/tournaments/{tournament_id}/start" in answer.raw
    assert "<script src=" not in answer.raw  # works offline
