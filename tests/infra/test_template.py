"""template.yaml: the event-driven wiring is what the code relies on.

The template is read as plain data (local.provision's loader keeps `!Ref` and
friends in their long form); nothing here deploys. Filters and the rule's pattern are
checked by matching sample records against them as Lambda and EventBridge would.
"""

from __future__ import annotations

import fnmatch
import json
import shutil
import subprocess
from collections.abc import Iterator
from typing import Any

import pytest

from infra.services.sweeper import MARGIN_SECONDS
from infra.store.connections import Connection, table_watchers, tournament_watchers
from infra.store.deadlines import INDEX, SHARDS
from infra.store.registration import name_claim_key
from infra.store.tournament_items import tournament_pk
from infra.tokens import new_id
from local.event_filters import matches
from local.provision import TEMPLATE_PATH, load_template

FUNCTION = "AWS::Serverless::Function"
TABLE_STREAM = {"Fn::GetAtt": ["KnobelcupTable", "StreamArn"]}
# DynamoDB's attribute type descriptors: the leaves of an image in a stream record
DYNAMODB_TYPES = {"S", "N", "B", "BOOL", "NULL", "M", "L", "SS", "NS", "BS"}

PUBLISHER_FILTERS = [
    {"dynamodb": {"NewImage": {"kind": {"S": ["table"]}}}},  # events, and pushes every turn
    # a table queued for a slot: its players hear `queued`
    {"eventName": ["INSERT"], "dynamodb": {"NewImage": {"kind": {"S": ["queued_table"]}}}},
    {
        "dynamodb": {
            "NewImage": {"kind": {"S": ["player"]}, "eliminated": {"BOOL": [True]}},
            "OldImage": {"eliminated": {"BOOL": [{"exists": False}]}},
        }
    },
    {"dynamodb": {"NewImage": {"kind": {"S": ["round_node"]}, "root": {"BOOL": [True]}}}},
    {
        "eventName": ["MODIFY"],
        "dynamodb": {
            "NewImage": {"kind": {"S": ["tournament"]}, "status": {"S": ["finished"]}},
            "OldImage": {"status": {"S": ["running"]}},
        },
    },
    {
        "dynamodb": {
            "NewImage": {"kind": {"S": ["tournament"]}, "job_step": {"N": [{"exists": True}]}}
        }
    },
]
TIMER_FILTERS = [{"dynamodb": {"NewImage": {"kind": {"S": ["table"]}}}}]


@pytest.fixture(scope="module")
def template() -> dict[str, Any]:
    return load_template(TEMPLATE_PATH)


def _resources(template: dict[str, Any], kind: str) -> dict[str, dict[str, Any]]:
    return {
        name: resource
        for name, resource in template["Resources"].items()
        if resource["Type"] == kind
    }


def _properties(template: dict[str, Any], name: str) -> dict[str, Any]:
    properties: dict[str, Any] = template["Resources"][name]["Properties"]
    return properties


def _stream_sources(template: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Function name -> Properties of its one DynamoDB event source."""
    sources: dict[str, dict[str, Any]] = {}
    for name, function in _resources(template, FUNCTION).items():
        events = function["Properties"].get("Events", {}).values()
        streams = [event["Properties"] for event in events if event["Type"] == "DynamoDB"]
        assert len(streams) <= 1, f"{name} reads the stream twice"
        if streams:
            sources[name] = streams[0]
    return sources


def _filters(source: dict[str, Any]) -> list[dict[str, Any]]:
    return [json.loads(entry["Pattern"]) for entry in source["FilterCriteria"]["Filters"]]


def _record(
    name: str, new: dict[str, Any] | None, old: dict[str, Any] | None = None
) -> dict[str, Any]:
    """A stream record in the shape Lambda filters: images in DynamoDB's format."""
    dynamodb: dict[str, Any] = {"Keys": {"pk": {"S": "T#cup"}, "sk": {"S": "X"}}}
    if new is not None:
        dynamodb["NewImage"] = new
    if old is not None:
        dynamodb["OldImage"] = old
    return {"eventName": name, "dynamodb": dynamodb}


def _kind(kind: str, **attributes: dict[str, Any]) -> dict[str, Any]:
    return {"kind": {"S": kind}, **attributes}


PLAYING = _kind("table", status={"S": "playing"})
OVER = _kind("table", status={"S": "over"})
BYE = _kind("table", status={"S": "bye"})
PLAYER = _kind("player", name={"S": "ann"})
OUT = _kind("player", name={"S": "ann"}, eliminated={"BOOL": True})
CHAMPION = _kind("player", name={"S": "ann"}, eliminated={"BOOL": False})
RUNNING = _kind("tournament", status={"S": "running"})
FINISHED = _kind("tournament", status={"S": "finished"})
STARTING = _kind("tournament", status={"S": "starting"}, job_step={"N": "0"})

PUBLISHED = {
    "a table is seated": _record("INSERT", PLAYING),
    "a bye is given": _record("INSERT", BYE),
    "a table finishes": _record("MODIFY", OVER, PLAYING),
    "a player is out": _record("MODIFY", OUT, PLAYER),
    "a round's root node is written": _record("MODIFY", _kind("round_node", root={"BOOL": True})),
    "the tournament finishes": _record("MODIFY", FINISHED, RUNNING),
    "a job step is done": _record("MODIFY", STARTING, STARTING),
    "a turn is played (pushed, no event)": _record("MODIFY", PLAYING, PLAYING),
}
NOT_PUBLISHED = {
    "a player registers": _record("INSERT", PLAYER),
    "an eliminated player is written again": _record("MODIFY", OUT, OUT),
    "the champion's exit is recorded": _record("MODIFY", CHAMPION, PLAYER),
    "an inner round node is written": _record("MODIFY", _kind("round_node", root={"BOOL": False})),
    "the tournament starts": _record("MODIFY", RUNNING, _kind("tournament", status={"S": "open"})),
    "a finished tournament is written again": _record("MODIFY", FINISHED, FINISHED),
    "a table expires": _record("REMOVE", None, OVER),
}


def test_the_model_matcher_agrees_with_the_documented_rules() -> None:
    pattern = {"a": {"b": ["x"]}, "c": [{"exists": False}]}
    assert matches(pattern, {"a": {"b": "x"}})
    assert not matches(pattern, {"a": {"b": "y"}})
    assert not matches(pattern, {"a": {"b": "x"}, "c": 1})
    # `exists` on an object: there is no value there, so "absent" always holds
    assert matches({"c": [{"exists": False}]}, {"c": {"BOOL": True}})


# --- the stream readers ------------------------------------------------------------------


def test_two_functions_read_the_stream_a_shard_serves_no_more(template: dict[str, Any]) -> None:
    sources = _stream_sources(template)
    assert set(sources) == {"PublisherFunction", "TimerFunction"}
    assert all(source["Stream"] == TABLE_STREAM for source in sources.values())


@pytest.mark.parametrize("function", ["PublisherFunction", "TimerFunction"])
def test_a_stream_reader_retries_a_failed_record_alone_and_keeps_what_it_gave_up_on(
    template: dict[str, Any], function: str
) -> None:
    source = _stream_sources(template)[function]

    assert source["FunctionResponseTypes"] == ["ReportBatchItemFailures"]
    assert source["BisectBatchOnFunctionError"] is True
    assert source["StartingPosition"] == "TRIM_HORIZON"  # nothing written before is skipped
    assert 10 <= source["MaximumRetryAttempts"] <= 10_000  # -1 would retry past the stream
    on_failure = source["DestinationConfig"]["OnFailure"]
    assert on_failure["Type"] == "SQS"  # SAM grants sqs:SendMessage only when it is given
    queue = on_failure["Destination"]["Fn::GetAtt"][0]
    assert template["Resources"][queue]["Type"] == "AWS::SQS::Queue"


def test_the_filters_are_the_ones_the_handlers_are_written_for(template: dict[str, Any]) -> None:
    sources = _stream_sources(template)
    assert _filters(sources["PublisherFunction"]) == PUBLISHER_FILTERS
    assert _filters(sources["TimerFunction"]) == TIMER_FILTERS


def _exists_not_on_a_type(node: Any, parent: str = "") -> Iterator[str]:
    if isinstance(node, dict):
        if "exists" in node and parent not in DYNAMODB_TYPES:
            yield parent
        for key, value in node.items():
            yield from _exists_not_on_a_type(value, key)
    elif isinstance(node, list):
        for value in node:
            yield from _exists_not_on_a_type(value, parent)


def test_exists_names_an_attribute_type_where_lambda_can_see_it(template: dict[str, Any]) -> None:
    for function, source in _stream_sources(template).items():
        for pattern in _filters(source):
            assert not list(_exists_not_on_a_type(pattern)), (function, pattern)


@pytest.mark.parametrize("change", PUBLISHED)
def test_the_publisher_hears_of_every_change_that_is_an_event(
    template: dict[str, Any], change: str
) -> None:
    filters = _filters(_stream_sources(template)["PublisherFunction"])
    assert any(matches(pattern, PUBLISHED[change]) for pattern in filters)


@pytest.mark.parametrize("change", NOT_PUBLISHED)
def test_the_publisher_is_not_invoked_for_other_changes(
    template: dict[str, Any], change: str
) -> None:
    filters = _filters(_stream_sources(template)["PublisherFunction"])
    assert not any(matches(pattern, NOT_PUBLISHED[change]) for pattern in filters)


def test_the_timer_hears_of_every_table_write_and_nothing_else(template: dict[str, Any]) -> None:
    filters = _filters(_stream_sources(template)["TimerFunction"])
    for record in (_record("INSERT", PLAYING), _record("MODIFY", OVER, PLAYING)):
        assert any(matches(pattern, record) for pattern in filters)
    for record in (_record("MODIFY", OUT, PLAYER), _record("REMOVE", None, PLAYING)):
        assert not any(matches(pattern, record) for pattern in filters)


# --- progression: rule, queue, function --------------------------------------------------


def test_one_job_step_is_one_invocation(template: dict[str, Any]) -> None:
    [source] = _properties(template, "JobFunction")["Events"].values()
    assert source["Properties"]["BatchSize"] == 1
    assert source["Properties"]["Queue"] == {"Fn::GetAtt": ["JobQueue", "Arn"]}


@pytest.mark.parametrize(
    ("rule_name", "detail_type", "queue", "policy_name"),
    [
        ("TableFinishedRule", "TableFinished", "ProgressionQueue", "ProgressionQueuePolicy"),
        ("JobStepRule", "JobStepReady", "JobQueue", "JobQueuePolicy"),
    ],
)
def test_each_rule_sends_its_events_to_its_queue_and_only_it_may(
    template: dict[str, Any], rule_name: str, detail_type: str, queue: str, policy_name: str
) -> None:
    properties = _properties(template, rule_name)
    assert properties["EventBusName"] == {"Ref": "EventBus"}
    pattern = properties["EventPattern"]
    assert matches(pattern, {"source": "knobelcup", "detail-type": detail_type})
    assert not matches(pattern, {"source": "knobelcup", "detail-type": "TableSeated"})
    assert not matches(pattern, {"source": "elsewhere", "detail-type": detail_type})
    assert [target["Arn"] for target in properties["Targets"]] == [{"Fn::GetAtt": [queue, "Arn"]}]

    # and the queue lets EventBridge send for this rule only
    policy = _properties(template, policy_name)
    assert policy["Queues"] == [{"Ref": queue}]
    [statement] = policy["PolicyDocument"]["Statement"]
    assert statement["Principal"] == {"Service": "events.amazonaws.com"}
    assert statement["Action"] == "sqs:SendMessage"
    assert statement["Condition"] == {
        "ArnEquals": {"aws:SourceArn": {"Fn::GetAtt": [rule_name, "Arn"]}}
    }
    rules = _resources(template, "AWS::Events::Rule")
    policies = _resources(template, "AWS::SQS::QueuePolicy")
    assert len(rules) == len(policies) == 2, "a new rule needs its row above"


def test_the_progression_queue_outlasts_six_function_timeouts_and_has_a_redrive(
    template: dict[str, Any],
) -> None:
    function = _properties(template, "ProgressionFunction")
    [event] = function["Events"].values()
    assert event["Type"] == "SQS"
    assert event["Properties"]["Queue"] == {"Fn::GetAtt": ["ProgressionQueue", "Arn"]}
    assert event["Properties"]["FunctionResponseTypes"] == ["ReportBatchItemFailures"]

    timeout = function.get("Timeout", template["Globals"]["Function"]["Timeout"])
    queue = _properties(template, "ProgressionQueue")
    assert queue["VisibilityTimeout"] >= 6 * timeout
    redrive = queue["RedrivePolicy"]
    assert redrive["maxReceiveCount"] >= 1
    dead_letters = redrive["deadLetterTargetArn"]["Fn::GetAtt"][0]
    assert template["Resources"][dead_letters]["Type"] == "AWS::SQS::Queue"
    assert dead_letters != "ProgressionQueue"


# --- deadlines: failed timeouts kept, the sweeper and its index -------------------------


def test_a_timeout_that_keeps_failing_is_kept_in_a_queue_not_dropped(
    template: dict[str, Any],
) -> None:
    config = _properties(template, "TimeoutFunction")["EventInvokeConfig"]
    # explicit, not Lambda's default; retried a little, the sweeper is the backstop
    assert config["MaximumRetryAttempts"] == 2
    assert 60 <= config["MaximumEventAgeInSeconds"] <= 21_600
    on_failure = config["DestinationConfig"]["OnFailure"]
    assert on_failure["Type"] == "SQS"  # SAM grants sqs:SendMessage only when it is given
    assert on_failure["Destination"] == {"Fn::GetAtt": ["TimeoutFailuresQueue", "Arn"]}
    queue = template["Resources"]["TimeoutFailuresQueue"]
    assert queue["Type"] == "AWS::SQS::Queue"
    assert queue["Properties"]["MessageRetentionPeriod"] == 1_209_600  # the most SQS keeps
    assert template["Outputs"]["TimeoutFailuresQueueUrl"]["Value"] == {
        "Ref": "TimeoutFailuresQueue"
    }
    # Scheduler's undeliverable events keep their own queue: a different record shape
    assert "OnSuccess" not in config["DestinationConfig"]


def test_the_deadline_index_is_the_one_the_code_queries(template: dict[str, Any]) -> None:
    table = _properties(template, "KnobelcupTable")
    [index] = table["GlobalSecondaryIndexes"]
    assert index["IndexName"] == INDEX
    assert index["KeySchema"] == [
        {"AttributeName": "due_shard", "KeyType": "HASH"},
        {"AttributeName": "due_at", "KeyType": "RANGE"},
    ]
    # keys only: a turn changes no projected attribute, so it never writes the index
    assert index["Projection"] == {"ProjectionType": "KEYS_ONLY"}
    types = {a["AttributeName"]: a["AttributeType"] for a in table["AttributeDefinitions"]}
    assert types == {"pk": "S", "sk": "S", "due_shard": "S", "due_at": "N"}
    assert [f"D#{n}" for n in range(16)] == SHARDS


def test_the_sweeper_runs_every_minute_and_ends_before_the_next_run(
    template: dict[str, Any],
) -> None:
    function = _properties(template, "SweeperFunction")
    assert function["Handler"] == "functions.sweeper.app.lambda_handler"
    [event] = function["Events"].values()
    assert event["Type"] == "Schedule"
    assert event["Properties"]["Schedule"] == "rate(1 minute)"
    # the run stops MARGIN_SECONDS before its timeout, so runs do not overlap
    assert function["Timeout"] < 60
    assert function["Timeout"] - MARGIN_SECONDS >= 30
    # a failed run is not retried: the next comes a minute later
    assert function["EventInvokeConfig"] == {
        "MaximumRetryAttempts": 0,
        "MaximumEventAgeInSeconds": 60,
    }


def test_the_sweeper_may_query_the_index_and_write_table_items_nothing_more(
    template: dict[str, Any],
) -> None:
    by_sid = {
        statement["Sid"]: statement
        for name, statement in _statements(template)
        if name == "SweeperFunction"
    }
    assert set(by_sid) == {"DeadlineIndex", "KnobelcupTableItems", "QueueHead", "LeaveTheQueue"}
    assert by_sid["QueueHead"]["Condition"] == QUEUE_KEYS
    assert _actions(by_sid["DeadlineIndex"]) == ["dynamodb:Query"]
    assert by_sid["DeadlineIndex"]["Resource"] == {
        "Fn::Sub": "${KnobelcupTable.Arn}/index/" + INDEX
    }
    assert sorted(_actions(by_sid["KnobelcupTableItems"])) == [
        "dynamodb:GetItem",
        "dynamodb:PutItem",
        "dynamodb:UpdateItem",
    ]
    assert by_sid["KnobelcupTableItems"]["Resource"] == {"Fn::GetAtt": ["KnobelcupTable", "Arn"]}


# --- permissions -------------------------------------------------------------------------


def _statements(template: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    """(resource name, statement) of every inline policy of a function or a role."""
    for name, function in _resources(template, FUNCTION).items():
        for policy in function["Properties"].get("Policies", []):
            assert isinstance(policy, dict) and "Statement" in policy, (
                f"{name}: only inline statements, so that they can be checked here"
            )
            for statement in policy["Statement"]:
                yield name, statement
    for name, role in _resources(template, "AWS::IAM::Role").items():
        for policy in role["Properties"].get("Policies", []):
            for statement in policy["PolicyDocument"]["Statement"]:
                yield name, statement


def _actions(statement: dict[str, Any]) -> list[str]:
    actions = statement["Action"]
    return [actions] if isinstance(actions, str) else list(actions)


# The only items any function may delete: a WebSocket connection's own
# (infra/store/connections.py), never a tournament's, a player's or a table's.
CONNECTION_KEYS = {"ForAllValues:StringLike": {"dynamodb:LeadingKeys": ["CONN#*", "T#*#WATCH"]}}


# and the socket function a socket ticket, which a $connect uses up
TICKET_KEYS = {"ForAllValues:StringLike": {"dynamodb:LeadingKeys": ["TICKET#*"]}}


# and, on a paced deployment, the functions that start queued tables a queue entry
# (infra/store/capacity.py), never the queued table's own item
QUEUE_KEYS = {"ForAllValues:StringLike": {"dynamodb:LeadingKeys": ["CAPACITY#QUEUE"]}}
STARTERS = {"ApiFunction", "ProgressionFunction", "JobFunction", "SweeperFunction"}


REMOVED_PLAYER_KEYS = {
    "ForAllValues:StringLike": {"dynamodb:LeadingKeys": ["T#t-??????????", "T#t-??????????#NAME#*"]}
}


def test_no_policy_grants_a_scan_a_delete_or_a_wildcard(template: dict[str, Any]) -> None:
    statements = list(_statements(template))
    assert {name for name, _ in statements} >= {
        "ApiFunction",
        "SocketFunction",
        "PublisherFunction",
        "TimerFunction",
        "ProgressionFunction",
        "TimeoutFunction",
        "SweeperFunction",
        "SchedulerRole",
    }
    deleters = set()
    for name, statement in statements:
        assert statement["Effect"] == "Allow"
        for action in _actions(statement):
            assert "*" not in action, (name, action)
            assert action != "dynamodb:Scan", (name, action)
            if action == "dynamodb:DeleteItem":
                assert _actions(statement) == [action], name
                allowed = [REMOVED_PLAYER_KEYS] if name == "ApiFunction" else [CONNECTION_KEYS]
                if name == "SocketFunction":
                    allowed.append(TICKET_KEYS)
                if name in STARTERS:
                    allowed.append(QUEUE_KEYS)
                assert statement["Condition"] in allowed, name
                deleters.add(name)
        assert statement["Resource"] != "*", name
    assert deleters == {"SocketFunction", "PublisherFunction"} | STARTERS


def test_the_api_may_delete_a_removed_player_and_their_name_claim_and_nothing_else() -> None:
    patterns = REMOVED_PLAYER_KEYS["ForAllValues:StringLike"]["dynamodb:LeadingKeys"]

    def deletable(key: str) -> bool:  # IAM's StringLike: `?` one character, `*` any run
        return any(fnmatch.fnmatchcase(key, pattern) for pattern in patterns)

    tournament = new_id("t")
    assert deletable(tournament_pk(tournament))
    assert deletable(name_claim_key(tournament, "anna")["pk"]["S"])
    for kept in (
        f"T#{tournament}#TABLE#R1-1",
        f"T#{tournament}#REG#07",
        f"T#{tournament}#AUDIT",
        tournament_watchers(tournament),
        "CONN#AbCd=",
    ):
        assert not deletable(kept), kept


def test_the_connection_keys_match_what_may_be_deleted_and_nothing_else() -> None:
    def deletable(key: str) -> bool:  # IAM's StringLike: `*` is any run of characters
        patterns = CONNECTION_KEYS["ForAllValues:StringLike"]["dynamodb:LeadingKeys"]
        return any(fnmatch.fnmatchcase(key, pattern) for pattern in patterns)

    connection = Connection("AbCd=", "t-abc", player="p-x")
    assert deletable("CONN#AbCd=")
    assert deletable(tournament_watchers("t-abc"))
    for kept in (
        "T#t-abc",  # the tournament and its players
        "T#t-abc#TABLE#R1-1",
        "T#t-abc#REG#07",
        connection.socket_set,  # sets lose members, never the item
        table_watchers("t-abc", "R1-1"),
    ):
        assert not deletable(kept), kept


# --- the WebSocket API -------------------------------------------------------------------


def test_the_websocket_api_routes_its_three_routes_to_the_socket_function(
    template: dict[str, Any],
) -> None:
    api = _properties(template, "SocketApi")
    assert api["ProtocolType"] == "WEBSOCKET"
    integration = _properties(template, "SocketIntegration")
    assert integration["ApiId"] == {"Ref": "SocketApi"}
    assert integration["IntegrationType"] == "AWS_PROXY"
    assert "${SocketFunction.Arn}" in integration["IntegrationUri"]["Fn::Sub"]
    routes = {
        _properties(template, name)["RouteKey"]: _properties(template, name)
        for name in _resources(template, "AWS::ApiGatewayV2::Route")
    }
    assert set(routes) == {"$connect", "$disconnect", "$default"}
    for route in routes.values():
        assert route["ApiId"] == {"Ref": "SocketApi"}
        assert route["Target"] == {"Fn::Sub": "integrations/${SocketIntegration}"}
    # a pong goes back to the client
    assert routes["$default"]["RouteResponseSelectionExpression"] == "$default"
    [response] = [
        resource["Properties"]
        for resource in _resources(template, "AWS::ApiGatewayV2::RouteResponse").values()
    ]
    assert response["RouteId"] == {"Ref": "SocketDefaultRoute"}
    assert _properties(template, "SocketFunction")["Handler"] == (
        "functions.socket.app.lambda_handler"
    )


def test_only_the_websocket_api_may_invoke_the_socket_function(template: dict[str, Any]) -> None:
    [permission] = _resources(template, "AWS::Lambda::Permission").values()
    properties = permission["Properties"]
    assert properties["FunctionName"] == {"Ref": "SocketFunction"}
    assert properties["Principal"] == "apigateway.amazonaws.com"
    assert properties["SourceArn"]["Fn::Sub"].endswith(":${SocketApi}/*")


def test_the_socket_stage_is_ws_throttled_and_logged(template: dict[str, Any]) -> None:
    stage = _properties(template, "SocketStage")
    assert stage["StageName"] == "ws"  # the local front serves the socket at /ws too
    assert stage["AutoDeploy"] is True
    assert stage["DefaultRouteSettings"] == {
        "ThrottlingRateLimit": {"Ref": "ApiThrottlingRateLimit"},
        "ThrottlingBurstLimit": {"Ref": "ApiThrottlingBurstLimit"},
    }
    group = stage["AccessLogSettings"]["DestinationArn"]["Fn::GetAtt"][0]
    assert _properties(template, group)["RetentionInDays"] == {"Ref": "LogRetentionInDays"}
    assert template["Outputs"]["SocketUrl"]["Value"]["Fn::Sub"].startswith("wss://${SocketApi}.")


def test_the_pages_connect_to_the_socket_api_the_stack_outputs(template: dict[str, Any]) -> None:
    api = _properties(template, "ApiFunction")
    socket = api["Environment"]["Variables"]["KNOBELCUP_SOCKET_URL"]["Fn::Sub"]
    output = template["Outputs"]["SocketUrl"]["Value"]["Fn::Sub"]
    assert socket.startswith("wss://${SocketApi}.") and socket.endswith("/${SocketStage}")
    assert socket.split("/")[2] == output.split("/")[2]  # the same host as SocketUrl


def test_the_publisher_pushes_to_the_stage_it_may_post_to_and_without_delay(
    template: dict[str, Any],
) -> None:
    publisher = _properties(template, "PublisherFunction")
    endpoint = publisher["Environment"]["Variables"]["KNOBELCUP_SOCKET_ENDPOINT"]["Fn::Sub"]
    assert endpoint.startswith("https://${SocketApi}.") and endpoint.endswith("/${SocketStage}")
    by_sid = {s["Sid"]: s for name, s in _statements(template) if name == "PublisherFunction"}
    post = by_sid["PostToConnections"]
    assert _actions(post) == ["execute-api:ManageConnections"]
    assert post["Resource"]["Fn::Sub"].endswith(":${SocketApi}/${SocketStage}/POST/@connections/*")
    assert sorted(_actions(by_sid["ConnectionReads"])) == [
        "dynamodb:BatchGetItem",
        "dynamodb:GetItem",
        "dynamodb:Query",
        "dynamodb:UpdateItem",  # a gone connection leaves its sets
    ]
    # a player waits for this push: no batching window before the publisher runs
    assert _stream_sources(template)["PublisherFunction"]["MaximumBatchingWindowInSeconds"] == 0


def test_the_socket_function_reads_and_writes_items_only(template: dict[str, Any]) -> None:
    by_sid = {s["Sid"]: s for name, s in _statements(template) if name == "SocketFunction"}
    assert set(by_sid) == {"KnobelcupTableItems", "ConnectionDeletes", "SocketTicketDeletes"}
    assert sorted(_actions(by_sid["KnobelcupTableItems"])) == [
        "dynamodb:GetItem",
        "dynamodb:PutItem",
        "dynamodb:UpdateItem",
    ]


def test_the_websocket_api_has_an_execution_error_alarm(template: dict[str, Any]) -> None:
    alarm = _alarm_on(template, "AWS/ApiGateway", "ExecutionError", "ApiId", {"Ref": "SocketApi"})
    assert alarm["Statistic"] == "Sum"


def test_the_timer_may_pass_the_scheduler_role_and_touch_only_its_group(
    template: dict[str, Any],
) -> None:
    by_sid = {
        statement["Sid"]: statement
        for name, statement in _statements(template)
        if name == "TimerFunction"
    }
    assert set(by_sid) == {"TurnSchedules", "PassSchedulerRole"}
    assert by_sid["TurnSchedules"]["Resource"]["Fn::Sub"].endswith(":schedule/${TurnSchedules}/*")
    assert by_sid["PassSchedulerRole"]["Resource"] == {"Fn::GetAtt": ["SchedulerRole", "Arn"]}

    role = _properties(template, "SchedulerRole")
    [trust] = role["AssumeRolePolicyDocument"]["Statement"]
    assert trust["Principal"] == {"Service": "scheduler.amazonaws.com"}
    assert trust["Condition"] == {"StringEquals": {"aws:SourceAccount": {"Ref": "AWS::AccountId"}}}


# --- environment, logs, packaging --------------------------------------------------------


def test_the_settings_reach_the_functions(template: dict[str, Any]) -> None:
    shared = template["Globals"]["Function"]["Environment"]["Variables"]
    assert shared["KNOBELCUP_RETENTION_DAYS"] == {"Ref": "RetentionDays"}
    assert template["Parameters"]["RetentionDays"]["Default"] == 180
    assert shared["KNOBELCUP_TABLES_IN_PLAY"] == {"Ref": "TablesInPlayBudget"}

    timer = _properties(template, "TimerFunction")["Environment"]["Variables"]
    assert timer == {
        "KNOBELCUP_SCHEDULE_GROUP": {"Ref": "TurnSchedules"},
        "KNOBELCUP_TIMEOUT_FUNCTION_ARN": {"Fn::GetAtt": ["TimeoutFunction", "Arn"]},
        "KNOBELCUP_SCHEDULER_ROLE_ARN": {"Fn::GetAtt": ["SchedulerRole", "Arn"]},
        "KNOBELCUP_TIMEOUT_DLQ_ARN": {"Fn::GetAtt": ["TimeoutDeadLetterQueue", "Arn"]},
    }


def test_every_function_has_a_log_group_with_the_retention(template: dict[str, Any]) -> None:
    groups = {
        group["Properties"]["LogGroupName"]["Fn::Sub"]: group
        for group in _resources(template, "AWS::Logs::LogGroup").values()
    }
    for name in _resources(template, FUNCTION):
        group = groups[f"/aws/lambda/${{{name}}}"]
        assert group["Properties"]["RetentionInDays"] == {"Ref": "LogRetentionInDays"}
        assert group["DeletionPolicy"] == "Delete"


def test_every_function_is_built_by_the_makefile_on_the_one_layer(
    template: dict[str, Any],
) -> None:
    assert template["Globals"]["Function"]["Layers"] == [{"Ref": "DependenciesLayer"}]
    layer = template["Resources"]["DependenciesLayer"]
    assert layer["Metadata"] == {"BuildMethod": "makefile", "BuildArchitecture": "arm64"}
    targets = ["build-DependenciesLayer"]
    for name, function in _resources(template, FUNCTION).items():
        assert function["Metadata"] == {"BuildMethod": "makefile"}, name
        targets.append(f"build-{name}")

    make = shutil.which("make")
    if make is None:
        pytest.skip("no make on this machine")
    for target in targets:
        dry_run = subprocess.run(
            [make, "--dry-run", "--no-print-directory", target, "ARTIFACTS_DIR=build-dir"],
            cwd=TEMPLATE_PATH.parent,
            capture_output=True,
            text=True,
            check=False,
        )
        assert dry_run.returncode == 0, dry_run.stderr
        assert "build-dir" in dry_run.stdout, target


# --- operations: alarms ------------------------------------------------------------------
# Generic on purpose: a function or a dead-letter queue added later fails here until its
# alarms are in the template.

ALARM = "AWS::CloudWatch::Alarm"
TOPIC = {"Ref": "AlarmTopic"}


def _alarms(template: dict[str, Any]) -> list[dict[str, Any]]:
    return [alarm["Properties"] for alarm in _resources(template, ALARM).values()]


def _alarm_on(
    template: dict[str, Any], namespace: str, metric: str, dimension: str, value: Any
) -> dict[str, Any]:
    """The one alarm on `metric` of `namespace` for exactly that one dimension."""
    found = [
        alarm
        for alarm in _alarms(template)
        if alarm["Namespace"] == namespace
        and alarm["MetricName"] == metric
        and alarm["Dimensions"] == [{"Name": dimension, "Value": value}]
    ]
    assert len(found) == 1, f"{len(found)} alarms on {namespace} {metric} of {value}"
    return found[0]


def _set_aside_queues(template: dict[str, Any]) -> list[str]:
    return [
        name
        for name in _resources(template, "AWS::SQS::Queue")
        if name.endswith(("DeadLetterQueue", "FailuresQueue"))
    ]


def test_every_alarm_notifies_the_alarm_topic_when_it_fires_and_when_it_is_ok(
    template: dict[str, Any],
) -> None:
    assert _resources(template, "AWS::SNS::Topic").keys() == {"AlarmTopic"}
    alarms = _alarms(template)
    assert len(alarms) >= 16
    for alarm in alarms:
        assert alarm["AlarmActions"] == [TOPIC], alarm["AlarmName"]
        assert alarm["OKActions"] == [TOPIC], alarm["AlarmName"]
        # a queue, function or API that is not used reports no data: that is fine
        assert alarm["TreatMissingData"] == "notBreaching", alarm["AlarmName"]
        assert alarm["ComparisonOperator"] == "GreaterThanThreshold", alarm["AlarmName"]
        assert "docs/operations.md" in alarm["AlarmDescription"], alarm["AlarmName"]


def test_alarm_names_are_unique_within_the_stack(template: dict[str, Any]) -> None:
    names = [alarm["AlarmName"]["Fn::Sub"] for alarm in _alarms(template)]
    assert all(name.startswith("${AWS::StackName}-") for name in names)
    assert len(set(names)) == len(names)


def test_the_alarm_email_is_subscribed_only_when_it_is_given(template: dict[str, Any]) -> None:
    parameter = template["Parameters"]["AlarmEmail"]
    assert parameter["Type"] == "String"
    assert parameter["Default"] == ""
    assert template["Conditions"]["HasAlarmEmail"] == {
        "Fn::Not": [{"Fn::Equals": [{"Ref": "AlarmEmail"}, ""]}]
    }
    [subscription] = _resources(template, "AWS::SNS::Subscription").values()
    assert subscription["Condition"] == "HasAlarmEmail"
    assert subscription["Properties"] == {
        "TopicArn": TOPIC,
        "Protocol": "email",
        "Endpoint": {"Ref": "AlarmEmail"},
    }


def test_every_function_has_an_errors_and_a_throttles_alarm(template: dict[str, Any]) -> None:
    functions = _resources(template, FUNCTION)
    assert len(functions) >= 5
    for name in functions:
        for metric in ("Errors", "Throttles"):
            alarm = _alarm_on(template, "AWS/Lambda", metric, "FunctionName", {"Ref": name})
            assert alarm["Statistic"] == "Sum"
            assert alarm["Threshold"] == 0  # a single one


def test_every_dead_letter_and_failure_queue_has_a_not_empty_alarm(
    template: dict[str, Any],
) -> None:
    queues = _set_aside_queues(template)
    assert {"StreamFailuresQueue", "ProgressionDeadLetterQueue", "TimeoutDeadLetterQueue"} <= set(
        queues
    )
    for name in queues:
        alarm = _alarm_on(
            template,
            "AWS/SQS",
            "ApproximateNumberOfMessagesVisible",
            "QueueName",
            {"Fn::GetAtt": [name, "QueueName"]},
        )
        assert alarm["Statistic"] == "Maximum"
        assert alarm["Threshold"] == 0  # one message is one step a tournament missed


def test_both_stream_readers_have_an_iterator_age_alarm(template: dict[str, Any]) -> None:
    readers = _stream_sources(template)
    assert set(readers) == {"PublisherFunction", "TimerFunction"}
    for name in readers:
        alarm = _alarm_on(template, "AWS/Lambda", "IteratorAge", "FunctionName", {"Ref": name})
        assert alarm["Statistic"] == "Maximum"
        assert 60_000 <= alarm["Threshold"] <= 15 * 60_000  # milliseconds, and minutes


def test_the_http_api_has_a_5xx_alarm(template: dict[str, Any]) -> None:
    apis = _resources(template, "AWS::Serverless::HttpApi")
    assert apis
    for name in apis:
        alarm = _alarm_on(template, "AWS/ApiGateway", "5xx", "ApiId", {"Ref": name})
        assert alarm["Statistic"] == "Sum"


def test_every_alarm_watches_something_the_template_makes(template: dict[str, Any]) -> None:
    resources = template["Resources"]
    service = template["Globals"]["Function"]["Environment"]["Variables"]["POWERTOOLS_SERVICE_NAME"]
    for alarm in _alarms(template):
        [dimension] = alarm["Dimensions"]
        value = dimension["Value"]
        if alarm["Namespace"] == "Knobelcup":  # our own metrics, as Powertools names them
            assert dimension == {"Name": "service", "Value": service}, alarm["AlarmName"]
            continue
        watched = value["Ref"] if "Ref" in value else value["Fn::GetAtt"][0]
        assert watched in resources, alarm["AlarmName"]


def test_the_tables_warm_throughput_is_a_parameter_the_plan_recommends(
    template: dict[str, Any],
) -> None:
    """`knobelcup plan` recommends the table's warm throughput (docs/capacity.md); the
    defaults are what a new on-demand table has anyway."""
    warm = _properties(template, "KnobelcupTable")["WarmThroughput"]
    assert warm == {
        "WriteUnitsPerSecond": {"Ref": "TableWarmWriteUnits"},
        "ReadUnitsPerSecond": {"Ref": "TableWarmReadUnits"},
    }
    assert template["Parameters"]["TableWarmWriteUnits"]["Default"] == 4000
    assert template["Parameters"]["TableWarmReadUnits"]["Default"] == 12000


def test_what_is_still_refused_after_its_retries_raises_an_alarm(template: dict[str, Any]) -> None:
    """The metrics `functions.observability.report_throttles` and the publisher write."""
    for metric in (
        "PushThrottledFailed",
        "SchedulerThrottledFailed",
        "DynamoDBThrottledFailed",
        "TurnsUndelivered",
    ):
        alarm = _alarm_on(template, "Knobelcup", metric, "service", "knobelcup")
        assert alarm["Statistic"] == "Sum" and alarm["Threshold"] == 0


# --- the site: the play page and the scripts from a bucket behind CloudFront -------------

CACHING_DISABLED = "4135ea2d-6df8-44a3-9df3-4b5a84be39ad"
CACHING_OPTIMIZED = "658327ea-f89d-4fab-a63d-7e88639e58f6"
ALL_VIEWER_EXCEPT_HOST = "b689b0a8-53d0-40ab-baf2-68738e2966ac"


def _distribution(template: dict[str, Any]) -> dict[str, Any]:
    config: dict[str, Any] = _properties(template, "SiteDistribution")["DistributionConfig"]
    return config


def test_the_site_is_the_buckets_and_every_other_path_the_apis(template: dict[str, Any]) -> None:
    config = _distribution(template)
    origins = {origin["Id"]: origin for origin in config["Origins"]}
    assert origins["site"]["DomainName"] == {"Fn::GetAtt": ["SiteBucket", "RegionalDomainName"]}
    assert origins["site"]["OriginAccessControlId"] == {
        "Fn::GetAtt": ["SiteOriginAccessControl", "Id"]
    }
    assert "HttpApi" in origins["api"]["DomainName"]["Fn::Sub"]
    api = config["DefaultCacheBehavior"]
    assert api["TargetOriginId"] == "api" and api["CachePolicyId"] == CACHING_DISABLED
    assert api["OriginRequestPolicyId"] == ALL_VIEWER_EXCEPT_HOST  # Host: API Gateway's own
    assert set(api["AllowedMethods"]) == {
        "GET",
        "HEAD",
        "OPTIONS",
        "PUT",
        "PATCH",
        "POST",
        "DELETE",
    }
    behaviors = {b["PathPattern"]: b for b in config["CacheBehaviors"]}
    assert set(behaviors) == {"/assets/*", "/tournaments/*/play"}
    for behavior in behaviors.values():
        assert behavior["TargetOriginId"] == "site"
        assert behavior["CachePolicyId"] == CACHING_OPTIMIZED
        assert behavior["ResponseHeadersPolicyId"] == {"Ref": "SiteHeaders"}
        assert behavior["ViewerProtocolPolicy"] == "redirect-to-https"
    router = [
        {
            "EventType": "viewer-request",
            "FunctionARN": {"Fn::GetAtt": ["SiteRouter", "FunctionARN"]},
        }
    ]
    assert behaviors["/tournaments/*/play"]["FunctionAssociations"] == router
    assert api["FunctionAssociations"] == router
    assert "FunctionAssociations" not in behaviors["/assets/*"]


def test_the_routers_play_page_is_the_one_the_local_front_routes(template: dict[str, Any]) -> None:
    from functions.site.routing import PLAY_PAGE  # noqa: PLC0415

    code = _properties(template, "SiteRouter")["FunctionCode"]
    literal = "/" + PLAY_PAGE.pattern.replace("/", "\\/") + "/"  # as JavaScript writes it
    assert f"var PLAY_PAGE = {literal};" in code
    assert _properties(template, "SiteRouter")["FunctionConfig"]["Runtime"] == "cloudfront-js-2.0"


def test_the_sites_pages_carry_the_apis_page_headers(template: dict[str, Any]) -> None:
    from functions.api.security_headers import content_security_policy  # noqa: PLC0415

    config = _properties(template, "SiteHeaders")["ResponseHeadersPolicyConfig"]
    headers = config["SecurityHeadersConfig"]
    socket = "wss://${SocketApi}.execute-api.${AWS::Region}.${AWS::URLSuffix}"
    policy = headers["ContentSecurityPolicy"]
    assert policy["ContentSecurityPolicy"] == {"Fn::Sub": content_security_policy(socket)}
    assert policy["Override"] is True
    assert headers["ContentTypeOptions"] == {"Override": True}
    assert headers["ReferrerPolicy"] == {"ReferrerPolicy": "no-referrer", "Override": True}


def test_only_the_distribution_reads_the_bucket_and_nobody_else_sees_it(
    template: dict[str, Any],
) -> None:
    bucket = _properties(template, "SiteBucket")
    assert all(bucket["PublicAccessBlockConfiguration"].values())
    statements = _properties(template, "SiteBucketPolicy")["PolicyDocument"]["Statement"]
    reads = next(s for s in statements if s["Effect"] == "Allow")
    assert reads["Principal"] == {"Service": "cloudfront.amazonaws.com"}
    assert set(reads["Action"]) == {"s3:GetObject", "s3:ListBucket"}  # a missing file: 404
    source = reads["Condition"]["StringEquals"]["AWS:SourceArn"]["Fn::Sub"]
    assert source.endswith(":distribution/${SiteDistribution}")


def test_every_deploy_puts_the_code_versions_site_into_the_bucket(template: dict[str, Any]) -> None:
    content = template["Resources"]["SiteContent"]
    assert content["Type"] == "Custom::SiteContent"
    properties = content["Properties"]
    assert properties["ServiceToken"] == {"Ref": "SiteFunction.Alias"}
    assert properties["Bucket"] == {"Ref": "SiteBucket"}
    assert properties["CodeVersion"] == {"Ref": "SiteFunction.Version"}  # new code: a new put
    function = _properties(template, "SiteFunction")
    assert function["Handler"] == "functions.site.app.lambda_handler"
    [files, listing] = function["Policies"][0]["Statement"]
    assert set(files["Action"]) == {"s3:PutObject", "s3:DeleteObject"}
    assert files["Resource"] == {"Fn::Sub": "${SiteBucket.Arn}/*"}
    assert listing["Action"] == "s3:ListBucket"


def test_the_api_knows_the_distribution_by_a_secret_only_the_stack_holds(
    template: dict[str, Any],
) -> None:
    from functions.api.caller import ORIGIN_HEADER  # noqa: PLC0415

    [api] = [o for o in _distribution(template)["Origins"] if o["Id"] == "api"]
    [header] = api["OriginCustomHeaders"]
    secret = {"Fn::Sub": "{{resolve:secretsmanager:${OriginSecret}:SecretString}}"}
    assert header == {"HeaderName": "X-Knobelcup-Origin", "HeaderValue": secret}
    assert header["HeaderName"].lower() == ORIGIN_HEADER
    variables = _properties(template, "ApiFunction")["Environment"]["Variables"]
    assert variables["KNOBELCUP_ORIGIN_SECRET"] == secret
