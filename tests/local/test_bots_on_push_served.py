"""Bot-kit bots on WebSocket push play a small tournament to its champion on the served
stack, as `make serve` runs it, and hardly poll: they read the feed or `/me` only after
connecting, on a version jump or after a quiet spell."""

from __future__ import annotations

import threading
from collections import Counter
from typing import Any

from served import serve_in_session
from suite_dice import suite_seed

from cli.api_client import ApiClient
from cli.botkit import BotResult, run_bot
from cli.demo_bots import bot_names, random_legal_action
from cli.push_watch import connector
from local.lambda_events import HttpAnswer


class Counted(ApiClient):
    """An `ApiClient` counting its requests by the path's last part (`view` for a
    player's view of a table)."""

    def __init__(self, url: str, counts: Counter[str], lock: threading.Lock) -> None:
        super().__init__(url)
        self.counts, self.lock = counts, lock

    def call(self, method: str, path: str, body: object = None, **request: Any) -> HttpAnswer:
        kind = "view" if "/tables/" in path and path.endswith("/me") else path.rsplit("/", 1)[-1]
        with self.lock:
            self.counts[kind] += 1
        return super().call(method, path, body, **request)


def test_bots_on_push_play_a_tournament_to_its_champion() -> None:
    with serve_in_session("--memory", "--dice-seed", suite_seed("push-bots")) as (_, url, _banner):
        api = ApiClient(url)
        created = api.ok(
            "POST", "/tournaments", {"game": "maexchen", "table_size": 4, "advance": 2}
        )
        tid, organizer = created["tournament_id"], created["organizer_token"]
        api.ok("POST", f"/tournaments/{tid}/registration/open", token=organizer)
        counts: Counter[str] = Counter()
        lock = threading.Lock()
        results: list[BotResult] = []
        registered = threading.Semaphore(0)

        def bot(name: str) -> None:
            client = Counted(url, counts, lock)
            results.append(
                run_bot(
                    client,
                    tid,
                    name,
                    random_legal_action,
                    on_registered=lambda _: registered.release(),
                    push=connector(url, tid),
                )
            )

        threads = [threading.Thread(target=bot, args=(n,), daemon=True) for n in bot_names(8)]
        for thread in threads:
            thread.start()
        for _ in threads:
            assert registered.acquire(timeout=60)
        api.ok("POST", f"/tournaments/{tid}/start", {"seed": "push-bots"}, token=organizer)
        for thread in threads:
            thread.join(timeout=240)
            assert not thread.is_alive()
        final = api.ok("GET", f"/tournaments/{tid}")
    assert final["status"] == "finished" and final["champion"]
    assert len(results) == 8 and all(r.error is None for r in results)
    assert sorted(r.place for r in results if r.place is not None) == list(range(1, 9))
    champion = [r for r in results if r.place == 1]
    assert champion[0].player_id == final["champion"]
    # polling at 0.5 s would read the feed several times per action; on push a bot
    # reads it about once per table (the look after being seated)
    assert counts["events"] <= counts["actions"]
    # `your_turn` brings the player's view: a view is read only after a look at the feed
    assert counts["view"] <= counts["events"]
