"""local.provision: the tables the tests use are the tables template.yaml deploys."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import boto3
import pytest
from botocore.exceptions import ClientError
from moto import mock_aws

from local.provision import TEMPLATE_PATH, create_tables, load_template, table_resources

TABLE = "KnobelcupTable"
# the deadline sweeper's sparse index (infra.store.deadlines): sharded on the deadline, keys only
DEADLINE_INDEX = {
    "IndexName": "deadlines",
    "KeySchema": [
        {"AttributeName": "due_shard", "KeyType": "HASH"},
        {"AttributeName": "due_at", "KeyType": "RANGE"},
    ],
    "Projection": {"ProjectionType": "KEYS_ONLY"},
}


@pytest.fixture
def client(aws_env: None) -> Iterator[Any]:
    """A DynamoDB client talking to moto, with fake credentials in a fixed region."""
    with mock_aws():
        yield boto3.client("dynamodb")


def _template_table() -> dict[str, Any]:
    tables = dict(table_resources(load_template()))
    assert list(tables) == [TABLE], "the design has exactly one table"
    return tables[TABLE]


def test_the_template_states_the_single_table_design() -> None:
    # Literal values, so a change to template.yaml's table shows up here as well.
    table = _template_table()
    assert table["KeySchema"] == [
        {"AttributeName": "pk", "KeyType": "HASH"},
        {"AttributeName": "sk", "KeyType": "RANGE"},
    ]
    assert table["AttributeDefinitions"] == [
        {"AttributeName": "pk", "AttributeType": "S"},
        {"AttributeName": "sk", "AttributeType": "S"},
        {"AttributeName": "due_shard", "AttributeType": "S"},
        {"AttributeName": "due_at", "AttributeType": "N"},
    ]
    assert table["BillingMode"] == "PAY_PER_REQUEST"
    assert table["StreamSpecification"] == {"StreamViewType": "NEW_AND_OLD_IMAGES"}
    assert table["TimeToLiveSpecification"] == {"AttributeName": "expires_at", "Enabled": True}
    assert table["GlobalSecondaryIndexes"] == [DEADLINE_INDEX]
    assert "LocalSecondaryIndexes" not in table  # it would cap a partition at 10 GB


def test_created_table_has_the_template_key_schema_billing_stream_and_ttl(client: Any) -> None:
    assert create_tables(client) == {TABLE: TABLE}
    expected = _template_table()

    table = client.describe_table(TableName=TABLE)["Table"]
    assert table["TableStatus"] == "ACTIVE"
    assert table["KeySchema"] == expected["KeySchema"]
    assert table["KeySchema"] == [
        {"AttributeName": "pk", "KeyType": "HASH"},
        {"AttributeName": "sk", "KeyType": "RANGE"},
    ]
    assert sorted(table["AttributeDefinitions"], key=str) == sorted(
        expected["AttributeDefinitions"], key=str
    )
    assert table["BillingModeSummary"]["BillingMode"] == expected["BillingMode"]
    assert table["BillingModeSummary"]["BillingMode"] == "PAY_PER_REQUEST"
    stream = expected["StreamSpecification"]["StreamViewType"]
    assert table["StreamSpecification"] == {"StreamEnabled": True, "StreamViewType": stream}
    assert stream == "NEW_AND_OLD_IMAGES"
    assert table["LatestStreamArn"]
    [index] = table["GlobalSecondaryIndexes"]
    assert {key: index[key] for key in DEADLINE_INDEX} == DEADLINE_INDEX
    assert index["IndexStatus"] == "ACTIVE"
    assert not table.get("LocalSecondaryIndexes")

    ttl = client.describe_time_to_live(TableName=TABLE)["TimeToLiveDescription"]
    assert ttl["TimeToLiveStatus"] == "ENABLED"
    assert ttl["AttributeName"] == expected["TimeToLiveSpecification"]["AttributeName"]
    assert ttl["AttributeName"] == "expires_at"


def test_a_conditional_put_refuses_a_second_item_with_the_same_key(client: Any) -> None:
    create_tables(client)
    item = {"pk": {"S": "T#cup"}, "sk": {"S": "META"}, "expires_at": {"N": "1900000000"}}
    put = {"TableName": TABLE, "Item": item, "ConditionExpression": "attribute_not_exists(pk)"}

    client.put_item(**put)
    with pytest.raises(ClientError) as refused:
        client.put_item(**put)

    assert refused.value.response["Error"]["Code"] == "ConditionalCheckFailedException"
    stored = client.get_item(TableName=TABLE, Key={"pk": item["pk"], "sk": item["sk"]})
    assert stored["Item"] == item


def test_names_give_the_physical_table_names(client: Any) -> None:
    assert create_tables(client, names={TABLE: "cup-test"}) == {TABLE: "cup-test"}

    assert client.list_tables()["TableNames"] == ["cup-test"]
    ttl = client.describe_time_to_live(TableName="cup-test")["TimeToLiveDescription"]
    assert ttl["AttributeName"] == "expires_at"


def test_short_form_functions_load_as_their_long_form(tmp_path: Path) -> None:
    template = tmp_path / "template.yaml"
    template.write_text(
        "Conditions:\n"
        "  Prod: !Equals [!Ref Stage, prod]\n"
        "Outputs:\n"
        "  A: {Value: !Sub '${AWS::StackName}-x'}\n"
        "  B: {Value: !GetAtt Table.StreamArn}\n"
        "  C: {Value: !If [Prod, !Join ['-', [a, b]], !Select [0, !Split [',', 'x,y']]]}\n"
        "  D: {Value: !And [!Condition Prod, !Not [!Condition Prod]]}\n",
        encoding="utf-8",
    )

    loaded = load_template(template)

    assert loaded["Conditions"]["Prod"] == {"Fn::Equals": [{"Ref": "Stage"}, "prod"]}
    outputs = {name: output["Value"] for name, output in loaded["Outputs"].items()}
    assert outputs["A"] == {"Fn::Sub": "${AWS::StackName}-x"}
    assert outputs["B"] == {"Fn::GetAtt": ["Table", "StreamArn"]}
    assert outputs["C"] == {
        "Fn::If": [
            "Prod",
            {"Fn::Join": ["-", ["a", "b"]]},
            {"Fn::Select": [0, {"Fn::Split": [",", "x,y"]}]},
        ]
    }
    assert outputs["D"] == {
        "Fn::And": [{"Condition": "Prod"}, {"Fn::Not": [{"Condition": "Prod"}]}]
    }


def test_the_real_template_loads_with_its_references_unevaluated() -> None:
    template = load_template(TEMPLATE_PATH)

    variables = template["Globals"]["Function"]["Environment"]["Variables"]
    assert variables["KNOBELCUP_TABLE"] == {"Ref": TABLE}
    assert template["Resources"]["EventBus"]["Properties"]["Name"] == {
        "Fn::Sub": "${AWS::StackName}-events"
    }


def test_secondary_indexes_are_created_as_the_template_states_them(
    client: Any, tmp_path: Path
) -> None:
    template = tmp_path / "template.yaml"
    template.write_text(
        """
Resources:
  Indexed:
    Type: AWS::DynamoDB::Table
    Properties:
      BillingMode: PAY_PER_REQUEST
      AttributeDefinitions:
        - {AttributeName: pk, AttributeType: S}
        - {AttributeName: gsi1pk, AttributeType: S}
      KeySchema:
        - {AttributeName: pk, KeyType: HASH}
      GlobalSecondaryIndexes:
        - IndexName: gsi1
          KeySchema:
            - {AttributeName: gsi1pk, KeyType: HASH}
          Projection: {ProjectionType: KEYS_ONLY}
          ContributorInsightsSpecification: {Enabled: true}
  NotATable:
    Type: AWS::Events::EventBus
    Properties: {Name: !Sub "${AWS::StackName}-events"}
""",
        encoding="utf-8",
    )

    assert create_tables(client, template) == {"Indexed": "Indexed"}

    table = client.describe_table(TableName="Indexed")["Table"]
    [index] = table["GlobalSecondaryIndexes"]
    assert index["IndexName"] == "gsi1"
    assert index["KeySchema"] == [{"AttributeName": "gsi1pk", "KeyType": "HASH"}]
    assert index["Projection"] == {"ProjectionType": "KEYS_ONLY"}
    assert "StreamSpecification" not in table
    assert client.describe_time_to_live(TableName="Indexed")["TimeToLiveDescription"] == {
        "TimeToLiveStatus": "DISABLED"
    }


def test_an_intrinsic_function_in_a_table_property_is_refused(client: Any, tmp_path: Path) -> None:
    template = tmp_path / "template.yaml"
    template.write_text(
        """
Resources:
  Table:
    Type: AWS::DynamoDB::Table
    Properties:
      BillingMode: !If [Prod, PROVISIONED, PAY_PER_REQUEST]
      AttributeDefinitions: [{AttributeName: pk, AttributeType: S}]
      KeySchema: [{AttributeName: pk, KeyType: HASH}]
""",
        encoding="utf-8",
    )

    with pytest.raises(ValueError, match="Fn::If cannot be resolved outside CloudFormation"):
        create_tables(client, template)
    assert client.list_tables()["TableNames"] == []
