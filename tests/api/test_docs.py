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


def test_every_operation_documents_its_answers_with_the_real_error_body(stack: Stack) -> None:
    document = stack.api.call("GET", "/openapi.json").body
    schemas = document["components"]["schemas"]
    assert "HTTPValidationError" not in schemas  # Powertools' {detail} body, never sent
    assert schemas["CreateTournament"]["properties"]["game"]["enum"] == [
        "maexchen",
        "mariechen",
        "zweiundvierzig",
    ]
    success = {
        ("post", "/tournaments"): "201",
        ("post", "/tournaments/{tournament_id}/players"): "201",
        ("post", "/tournaments/{tournament_id}/start"): "202",
        ("post", "/tournaments/{tournament_id}/cancel"): "202",
        ("post", "/tournaments/{tournament_id}/organizer/token"): "201",
        ("post", "/tournaments/{tournament_id}/me/socket-ticket"): "201",
    }
    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            answers = operation["responses"]
            assert success.get((method, path), "200") in answers, (method, path)
            errors = {code: answer for code, answer in answers.items() if code >= "400"}
            assert {"404", "429"} <= errors.keys() or path == "/tournaments", (method, path)
            for code, answer in errors.items():
                schema = answer["content"]["application/json"]["schema"]
                assert schema == {"$ref": "#/components/schemas/ErrorBody"}, (method, path, code)
            if "requestBody" in operation:
                assert {"400", "413", "415", "422"} <= errors.keys(), (method, path)
            if operation.get("security") == [{"bearerAuth": []}]:
                assert {"401", "403"} <= errors.keys(), (method, path)


def _references(node: object) -> list[str]:
    if isinstance(node, dict):
        return [
            found
            for key, value in node.items()
            for found in ([value] if key == "$ref" else _references(value))
        ]
    if isinstance(node, list):
        return [found for value in node for found in _references(value)]
    return []


def test_every_reference_in_the_openapi_document_resolves(stack: Stack) -> None:
    """A dangling `$ref` makes a client generator warn and drop the schema it sits in."""
    document = stack.api.call("GET", "/openapi.json").body
    references = _references(document)
    assert references  # the routes' bodies are referenced, not inlined
    for reference in references:
        target: object = document
        assert reference.startswith("#/"), reference
        for part in reference[2:].split("/"):
            assert isinstance(target, dict) and part in target, reference
            target = target[part]
