"""Creates the DynamoDB tables that template.yaml declares, wherever a client points.

Tests (moto) and the local stack (moto's server) get their tables from the deployed
template itself, so their key schema, stream and TTL cannot drift from production's.
Only what DynamoDB's `CreateTable` and `UpdateTimeToLive` take is copied; encryption and
point-in-time recovery stay the business of CloudFormation.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import yaml

TEMPLATE_PATH = Path(__file__).resolve().parents[1] / "template.yaml"

TABLE_TYPE = "AWS::DynamoDB::Table"

# The keys of a CloudFormation index definition that CreateTable accepts as they are
# (ContributorInsightsSpecification, say, is CloudFormation's only).
_INDEX_KEYS = ("IndexName", "KeySchema", "Projection", "ProvisionedThroughput")


class DynamoDBClient(Protocol):
    """The part of a boto3 DynamoDB client that provisioning uses."""

    def create_table(self, **kwargs: Any) -> Any: ...

    def update_time_to_live(self, **kwargs: Any) -> Any: ...

    def get_waiter(self, waiter_name: str) -> Any: ...


class CloudFormationLoader(yaml.SafeLoader):
    """A safe YAML loader that also reads CloudFormation's short-form functions.

    `!Ref X` becomes `{"Ref": "X"}`, `!GetAtt A.B` becomes `{"Fn::GetAtt": ["A", "B"]}`,
    `!Sub s` becomes `{"Fn::Sub": "s"}`, and so on: the long form, never evaluated.
    """


def _construct_short_form(loader: yaml.SafeLoader, suffix: str, node: yaml.Node) -> Any:
    value: Any
    if isinstance(node, yaml.ScalarNode):
        value = loader.construct_scalar(node)
    elif isinstance(node, yaml.SequenceNode):
        value = loader.construct_sequence(node, deep=True)
    elif isinstance(node, yaml.MappingNode):
        value = loader.construct_mapping(node, deep=True)
    else:  # pragma: no cover - yaml has no other node kinds
        raise yaml.constructor.ConstructorError(None, None, f"unexpected {node!r}", node.start_mark)
    if suffix == "GetAtt" and isinstance(value, str):
        value = value.split(".", 1)
    key = suffix if suffix in ("Ref", "Condition") else f"Fn::{suffix}"
    return {key: value}


CloudFormationLoader.add_multi_constructor("!", _construct_short_form)


def load_template(template: Path = TEMPLATE_PATH) -> dict[str, Any]:
    """The template as plain data, its intrinsic functions in long form."""
    with template.open(encoding="utf-8") as stream:
        loaded = yaml.load(stream, Loader=CloudFormationLoader)  # a SafeLoader: no objects
    if not isinstance(loaded, dict):
        raise ValueError(f"{template} is not a CloudFormation template")
    return loaded


def table_resources(template: Mapping[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    """(logical id, Properties) of every DynamoDB table, in template order."""
    for logical_id, resource in template.get("Resources", {}).items():
        if resource.get("Type") == TABLE_TYPE:
            yield logical_id, resource.get("Properties", {})


def create_tables(
    client: DynamoDBClient,
    template: Path = TEMPLATE_PATH,
    names: Mapping[str, str] | None = None,
    *,
    exist_ok: bool = False,
) -> dict[str, str]:
    """Create every table of `template` through `client`; logical id -> table name.

    A table is named by `names[logical id]`, else by its logical id (the template's own
    TableName, if any, is ignored: CloudFormation names tables per stack). Returns once
    every table exists and its TTL is set. `exist_ok` keeps a table that exists already
    (a restored local state) as it is.
    """
    names = names or {}
    created: dict[str, str] = {}
    ttls: dict[str, dict[str, Any]] = {}
    for logical_id, properties in table_resources(load_template(template)):
        name = names.get(logical_id, logical_id)
        try:
            client.create_table(**_create_table_request(name, properties, logical_id))
        except Exception as error:
            if not (exist_ok and _error_code(error) == "ResourceInUseException"):
                raise
        created[logical_id] = name
        if "TimeToLiveSpecification" in properties:
            ttls[name] = _literal(properties["TimeToLiveSpecification"], logical_id)
    waiter = client.get_waiter("table_exists")
    for name in created.values():
        waiter.wait(TableName=name)
    for name, ttl in ttls.items():  # DynamoDB refuses TTL changes while a table is CREATING
        client.update_time_to_live(TableName=name, TimeToLiveSpecification=ttl)
    return created


def _create_table_request(name: str, properties: Mapping[str, Any], where: str) -> dict[str, Any]:
    """CreateTable's arguments from a table's CloudFormation Properties."""
    request: dict[str, Any] = {
        "TableName": name,
        "KeySchema": _literal(properties["KeySchema"], where),
        "AttributeDefinitions": _literal(properties["AttributeDefinitions"], where),
        "BillingMode": _literal(properties.get("BillingMode", "PROVISIONED"), where),
    }
    if "ProvisionedThroughput" in properties:
        request["ProvisionedThroughput"] = _literal(properties["ProvisionedThroughput"], where)
    stream = properties.get("StreamSpecification")
    if stream is not None:
        view_type = _literal(stream["StreamViewType"], where)
        request["StreamSpecification"] = {"StreamEnabled": True, "StreamViewType": view_type}
    for indexes in ("GlobalSecondaryIndexes", "LocalSecondaryIndexes"):
        if indexes in properties:
            request[indexes] = [
                {key: _literal(index[key], where) for key in _INDEX_KEYS if key in index}
                for index in properties[indexes]
            ]
    return request


def _literal(value: Any, where: str) -> Any:
    """`value` unchanged, if no intrinsic function hides in it: only a stack resolves those."""
    if isinstance(value, dict):
        for key in value:
            if key in ("Ref", "Condition") or str(key).startswith("Fn::"):
                raise ValueError(
                    f"{where}: {key} cannot be resolved outside CloudFormation; "
                    "state the table's schema, billing, stream and TTL as plain values"
                )
        return {key: _literal(item, where) for key, item in value.items()}
    if isinstance(value, list):
        return [_literal(item, where) for item in value]
    return value


@dataclass(frozen=True)
class Messaging:
    """What `create_messaging` made: the bus, the queues by logical id, the schedule group."""

    bus: str
    queues: dict[str, str]  # logical id → queue URL
    schedule_group: str


def create_messaging(
    events: Any,
    sqs: Any,
    scheduler: Any,
    prefix: str,
    template: Path = TEMPLATE_PATH,
    *,
    exist_ok: bool = False,
) -> Messaging:
    """The template's bus, queues, rules (bus → queue) and schedule group, named
    `<prefix>-<logical id>`: the event plumbing as deployed, so that patterns and targets
    cannot drift between the tests and production. `exist_ok` keeps what exists already
    (a restored local state), adding what is missing and putting the rules again."""
    resources = load_template(template).get("Resources", {})
    bus = f"{prefix}-events"
    try:
        events.create_event_bus(Name=bus)
    except Exception as error:
        if not (exist_ok and _error_code(error) == "ResourceAlreadyExistsException"):
            raise
    queues: dict[str, str] = {}
    arns: dict[str, str] = {}
    for logical_id, resource in resources.items():
        if resource.get("Type") == "AWS::SQS::Queue":
            url = sqs.create_queue(QueueName=f"{prefix}-{logical_id}")["QueueUrl"]
            queues[logical_id] = url
            arns[logical_id] = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])[
                "Attributes"
            ]["QueueArn"]
    for logical_id, resource in resources.items():
        if resource.get("Type") != "AWS::Events::Rule":
            continue
        properties = resource["Properties"]
        name = f"{prefix}-{logical_id}"
        events.put_rule(
            Name=name,
            EventBusName=bus,
            EventPattern=json.dumps(_literal(properties["EventPattern"], logical_id)),
        )
        events.put_targets(
            Rule=name,
            EventBusName=bus,
            Targets=[
                {"Id": target["Id"], "Arn": arns[target["Arn"]["Fn::GetAtt"][0]]}
                for target in properties["Targets"]
            ],
        )
    group = f"{prefix}-turns"
    if not (exist_ok and _schedule_group_exists(scheduler, group)):
        try:
            scheduler.create_schedule_group(Name=group)
        except Exception as error:
            if not (exist_ok and _error_code(error) == "ConflictException"):
                raise
    return Messaging(bus=bus, queues=queues, schedule_group=group)


def _schedule_group_exists(scheduler: Any, group: str) -> bool:
    """Whether `group` exists. Asked first: moto's CreateScheduleGroup does not refuse a
    group that exists, as Scheduler does, but replaces it with an empty one, and a
    restored state would lose every pending turn deadline."""
    try:
        scheduler.get_schedule_group(Name=group)
    except Exception as error:
        if _error_code(error) == "ResourceNotFoundException":
            return False
        raise
    return True


def _error_code(error: Exception) -> str:
    """The AWS error code of a botocore `ClientError` ('' for anything else)."""
    response = getattr(error, "response", None) or {}
    return str(response.get("Error", {}).get("Code", ""))


def function_timeout(logical_id: str, template: Path = TEMPLATE_PATH) -> float:
    """A function's Timeout in seconds, its own or the template's Globals'."""
    loaded = load_template(template)
    properties = loaded["Resources"][logical_id]["Properties"]
    return float(properties.get("Timeout", loaded["Globals"]["Function"]["Timeout"]))
