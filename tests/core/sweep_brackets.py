"""Every bracket plan from 2 to 5,000 players at all 66 settings, checked as the suite
checks a sample of them (`test_fair_brackets.check_fair`): `make bracket-sweep`.

Minutes of work, so the suite checks representative counts and this script the rest;
run it after a change to `core/bracket/`.
"""

from __future__ import annotations

import argparse
import sys
import time
from concurrent.futures import ProcessPoolExecutor

from test_fair_brackets import PAIRS, check_fair

from core.bracket import BracketPlan


def sweep(setting: tuple[int, int], most: int) -> list[str]:
    table_size, advance = setting
    problems = []
    for players in range(2, most + 1):
        try:
            check_fair(BracketPlan.build(players, table_size, advance))
        except AssertionError as error:
            problems.append(f"{players} players, tables of {table_size}, {advance} on: {error}")
    return problems


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=5000, help="the largest count")
    args = parser.parse_args()
    began = time.perf_counter()
    unfair = 0
    with ProcessPoolExecutor() as pool:
        for problems in pool.map(sweep, PAIRS, [args.players] * len(PAIRS)):
            unfair += len(problems)
            for problem in problems[:3]:
                print(problem)
    plans = len(PAIRS) * (args.players - 1)
    seconds = time.perf_counter() - began
    print(f"{plans:,} plans checked in {seconds:.0f} s: {unfair} unfair")
    return 1 if unfair else 0


if __name__ == "__main__":
    sys.exit(main())
