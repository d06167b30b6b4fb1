"""`knobelcup admin VERB`: repairs for an operator, on AWS or on the local service.

knobelcup admin redrive [--queue stream-failures|progression|all] [--stack knobelcup]
knobelcup admin redrive --local http://127.0.0.1:PORT     (moto's address `make serve` prints)
knobelcup admin reconcile TOURNAMENT [--push-job] [--stack knobelcup | --local URL]

Each verb is a `Verb`: its options and what it runs against a `Deployment` (the queues,
clients and stream readers of one stack). A new verb is one more entry in `VERBS`.

What the verbs print is `admin.*` in `core.words`, German or English (`--language`, else
the locale's); a redrive's report and what AWS says of an error stay as they come.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from cli.play import console_language
from core.words import DEFAULT, say
from infra.outbox.redrive import Invoker, Outcome, redrive_dead_letters, redrive_stream_failures

# The queues a redrive empties, by the template's logical ids: dead letters go back to
# their source queue; stream failures are replayed through the function that failed.
STREAM_FAILURES = "StreamFailuresQueue"
DEAD_LETTERS = {"progression": ("ProgressionDeadLetterQueue", "ProgressionQueue")}
QUEUE_CHOICES = ["stream-failures", *DEAD_LETTERS, "all"]
LOCAL_PREFIX = "knobelcup"  # the local service's stack (local.service.PREFIX)


@dataclass
class Deployment:
    """One Knobelcup stack as an operator reaches it."""

    clients: Callable[[str], Any]  # boto3 client by service name
    queue_urls: dict[str, str]  # logical id → URL
    invoker: Invoker  # where the stream readers run
    wait_seconds: int = 1  # SQS long polling; 0 where nothing arrives meanwhile
    table_name: str = "knobelcup"  # the stack's table


@dataclass(frozen=True)
class Verb:
    """One admin command: its options, and what it does with a deployment."""

    help: str
    add_arguments: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace, Deployment], int]


def _redrive_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--queue",
        choices=QUEUE_CHOICES,
        default="all",
        help="stream-failures: replay the stream records a reader gave up on; "
        "progression: ProgressionDeadLetterQueue back to ProgressionQueue (default: all)",
    )
    parser.add_argument(
        "--drop-lost",
        action="store_true",
        help="delete stream-failure pointers whose records are past the stream's 24 hours "
        "(after `knobelcup admin reconcile` repaired their tournaments)",
    )


def redrive(args: argparse.Namespace, deployment: Deployment) -> int:
    """Redrive the chosen queues; 0 if everything went back, 1 if anything failed or was lost."""
    sqs = deployment.clients("sqs")
    urls = deployment.queue_urls
    outcomes: list[Outcome] = []
    if args.queue in ("stream-failures", "all"):
        outcomes.append(
            redrive_stream_failures(
                sqs,
                urls[STREAM_FAILURES],
                deployment.clients("dynamodbstreams"),
                deployment.invoker,
                drop_lost=args.drop_lost,
                wait_seconds=deployment.wait_seconds,
            )
        )
    for name, (dead_letters, source) in DEAD_LETTERS.items():
        if args.queue in (name, "all"):
            outcomes.append(
                redrive_dead_letters(
                    sqs,
                    urls[dead_letters],
                    urls[source],
                    name,
                    wait_seconds=deployment.wait_seconds,
                )
            )
    for outcome in outcomes:
        print("\n".join(outcome.report()))
    return 0 if all(outcome.clean for outcome in outcomes) else 1


def _reconcile_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("tournament", help="the tournament's id")
    parser.add_argument(
        "--push-job",
        action="store_true",
        help="run the job under way (such as a start stuck seating round 1) here, step by "
        "step, to its end; only for a job that stopped moving: one still moving would do "
        "its steps twice",
    )


def reconcile(args: argparse.Namespace, deployment: Deployment) -> int:
    """Reconcile the tournament page after page, printing each; 0 once done, 2 if unknown."""
    from infra.bootstrap import build_jobs, build_reconciler  # noqa: PLC0415  # this verb's
    from infra.errors import NotFound  # noqa: PLC0415
    from infra.settings import Settings  # noqa: PLC0415

    settings = Settings(table_name=deployment.table_name, event_bus="")
    client = deployment.clients("dynamodb")
    reconciler = build_reconciler(settings, client=client)
    lang = _language(args)
    try:
        job = _reconcile_pages(reconciler, args.tournament, lang)
        if job is not None and args.push_job:
            steps = build_jobs(settings, client=client).run_to_end(args.tournament)
            print(say(lang, "admin.job_done", job=job["name"], steps=steps))
            job = _reconcile_pages(reconciler, args.tournament, lang)
    except NotFound as error:
        print(say(lang, "admin.error", error=error), file=sys.stderr)
        return 2
    if job is not None:
        print(
            say(lang, "admin.job_under_way", job=job["name"], step=job["step"], phase=job["phase"])
        )
    return 0


def _language(args: argparse.Namespace) -> str:
    """What the verbs say: `--language`, else the locale's, else English."""
    return console_language(getattr(args, "language", None))


def _reconcile_pages(reconciler: Any, tournament: str, lang: str) -> dict[str, Any] | None:
    """Every page of one reconcile, a line each and a total; the job under way, if any."""
    cursor: str | None = None
    checked = in_play = 0
    repaired: list[str] = []
    while True:
        report, following = reconciler.reconcile_page(tournament, cursor)
        checked, in_play = checked + report.checked, in_play + report.in_play
        repaired.extend(report.repaired)
        if report.checked:
            print(
                say(
                    lang, "admin.page", cursor=cursor or say(lang, "admin.first_table"),
                    checked=report.checked, in_play=report.in_play,
                    repaired=" ".join(report.repaired) or say(lang, "admin.none_repaired"),
                )
            )  # fmt: skip
        cursor = following
        if cursor is None:
            break
    print(
        say(
            lang, "admin.total", tournament=tournament, status=report.status, checked=checked,
            in_play=in_play, repaired=len(repaired),
        )
    )  # fmt: skip
    job: dict[str, Any] | None = report.job
    return job


VERBS: dict[str, Verb] = {
    "redrive": Verb(
        "put set-aside work back: stream failures through their function, dead letters "
        "into their source queue",
        _redrive_arguments,
        redrive,
    ),
    "reconcile": Verb(
        "replay what lost events left undone in one tournament, from its items: finished "
        "tables not moved on, next tables not seated, the finish",
        _reconcile_arguments,
        reconcile,
    ),
}


def add_admin_parser(commands: Any) -> None:
    """`admin` and its verbs, under the main parser's subcommands."""
    admin = commands.add_parser(
        "admin", help="operator repairs (redrive, reconcile), on AWS or locally"
    )
    verbs = admin.add_subparsers(dest="verb", required=True, metavar="VERB")
    for name, verb in VERBS.items():
        parser = verbs.add_parser(name, help=verb.help)
        verb.add_arguments(parser)
        where = parser.add_mutually_exclusive_group()
        where.add_argument(
            "--stack", default="knobelcup", help="the CloudFormation stack (default knobelcup)"
        )
        where.add_argument(
            "--local",
            metavar="AWS_ENDPOINT",
            help="the local service instead: the moto address `make serve` prints",
        )
        parser.add_argument("--region", help="the stack's AWS region (default: boto3's)")
        parser.add_argument(
            "--language",
            choices=("de", "en"),
            help="what this command says, German or English (default: the locale's)",
        )


def run(args: argparse.Namespace) -> int:
    """Run the verb against AWS or the local service; a deployment that cannot be
    reached or is not set up ends in one line saying what to do, not a traceback."""
    from botocore.exceptions import BotoCoreError, ClientError  # noqa: PLC0415

    verb = VERBS[args.verb]
    lang = _language(args)
    try:
        with _deployment(args) as deployment:
            return verb.run(args, deployment)
    except LookupError as error:
        print(say(lang, "admin.error", error=error), file=sys.stderr)
        return 2
    except (BotoCoreError, ClientError) as error:
        print(say(lang, "admin.error", error=_unreachable(args, error, lang)), file=sys.stderr)
        return 1
    except ValueError as error:  # botocore's word for an endpoint that is no URL
        if not str(error).startswith("Invalid endpoint"):
            raise
        hint = say(lang, "admin.local_hint")
        wrong = say(lang, "admin.not_a_url", local=repr(args.local), hint=hint)
        print(say(lang, "admin.error", error=wrong), file=sys.stderr)
        return 2


def _unreachable(args: argparse.Namespace, error: Exception, lang: str) -> str:
    """One line on why the deployment could not be used, and what to do."""
    from botocore.exceptions import (  # noqa: PLC0415
        ClientError,
        EndpointConnectionError,
        NoCredentialsError,
        NoRegionError,
    )

    hint = say(lang, "admin.local_hint")
    if isinstance(error, NoRegionError):
        return say(lang, "admin.no_region")
    if isinstance(error, NoCredentialsError):
        return say(lang, "admin.no_credentials")
    if args.local and isinstance(error, EndpointConnectionError):
        return say(lang, "admin.nothing_answers", local=args.local, hint=hint)
    if args.local and isinstance(error, ClientError):
        return say(lang, "admin.not_local", local=args.local, error=error, hint=hint)
    return str(error)


@contextmanager
def _deployment(args: argparse.Namespace) -> Iterator[Deployment]:
    if args.local:
        with local_deployment(args.local) as deployment:
            yield deployment
    else:
        yield aws_deployment(args.stack, args.region, _language(args))


def aws_deployment(stack: str, region: str | None = None, lang: str = DEFAULT) -> Deployment:
    """A deployed stack: queue URLs from its outputs, stream readers run by Lambda."""
    import boto3  # noqa: PLC0415

    from infra.outbox.lambda_invoker import LambdaInvoker  # noqa: PLC0415
    from local.event_filters import passes  # noqa: PLC0415

    session = boto3.session.Session(region_name=region)
    described = session.client("cloudformation").describe_stacks(StackName=stack)
    outputs = {o["OutputKey"]: o["OutputValue"] for o in described["Stacks"][0].get("Outputs", [])}
    queue_urls = {
        key.removesuffix("Url"): value for key, value in outputs.items() if key.endswith("QueueUrl")
    }
    needed = [STREAM_FAILURES, *(q for pair in DEAD_LETTERS.values() for q in pair)]
    missing = [q for q in needed if q not in queue_urls]
    if missing:
        outputs_missing = ", ".join(m + "Url" for m in missing)
        raise LookupError(say(lang, "admin.no_output", stack=stack, outputs=outputs_missing))
    if "TableName" not in outputs:
        raise LookupError(say(lang, "admin.no_output", stack=stack, outputs="TableName"))
    return Deployment(
        session.client,
        queue_urls,
        LambdaInvoker(session.client("lambda"), passes),
        table_name=outputs["TableName"],
    )


@contextmanager
def local_deployment(endpoint: str, prefix: str = LOCAL_PREFIX) -> Iterator[Deployment]:
    """The local service behind moto's `endpoint`: its queues by name, the stream readers'
    handlers run in this process, wired to that stack."""
    import boto3  # noqa: PLC0415

    from local.fake_aws import fake_aws  # noqa: PLC0415

    quiet = {"POWERTOOLS_METRICS_DISABLED": "true", "POWERTOOLS_LOG_LEVEL": "WARNING"}
    with fake_aws(endpoint, **quiet):
        # imported only now: the functions read the environment when imported
        from local.redrive import (  # noqa: PLC0415
            InProcessInvoker,
            local_settings,
            stream_reader_handlers,
            unwire_stream_readers,
            wire_stream_readers,
        )

        sqs = boto3.client("sqs")
        needed = [STREAM_FAILURES, *(q for pair in DEAD_LETTERS.values() for q in pair)]
        queue_urls = {q: sqs.get_queue_url(QueueName=f"{prefix}-{q}")["QueueUrl"] for q in needed}
        clients = {"events": boto3.client("events"), "scheduler": boto3.client("scheduler")}
        wire_stream_readers(prefix, clients)
        try:
            yield Deployment(
                boto3.client,
                queue_urls,
                InProcessInvoker(stream_reader_handlers()),
                table_name=local_settings(prefix).table_name,
            )
        finally:
            unwire_stream_readers()
