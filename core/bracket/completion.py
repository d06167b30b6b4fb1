"""When is a round complete? A counting tree, so that no item hears from every table.

A round of a million-player tournament has about 170,000 tables. Counting them on one
item would write that item 170,000 times in a few minutes, past what one DynamoDB
partition takes. Instead each table reports to a node of at most `branching` tables;
a node that has heard from all its children reports to its parent in the level above,
and the round is complete when the root has. Every node is written at most `branching`
times (plus redeliveries), and the tree is log_branching(tables) levels deep.

Children are recorded by index (a set), so a repeated report changes nothing.
"""

from __future__ import annotations

from typing import NamedTuple

BRANCHING = 32


class Step(NamedTuple):
    """Record `child` at node `node` of `level`, which expects `children` in all."""

    level: int
    node: int
    child: int
    children: int
    root: bool


def completion_path(tables: int, index: int, branching: int = BRANCHING) -> tuple[Step, ...]:
    """The nodes table `index` of a `tables`-table round reports through, leaf first.

    A caller records step 0; only if that node is then complete does it record step 1,
    and so on: reaching and completing the last step (the root) completes the round.
    """
    if tables < 1 or not 0 <= index < tables:
        raise ValueError(f"table {index} is not in a round of {tables} tables")
    if branching < 2:
        raise ValueError("a counting tree needs a branching of at least 2")
    steps: list[Step] = []
    units, child, level = tables, index, 0  # units: how many children this level counts
    while True:
        nodes = -(-units // branching)
        node = child // branching
        children = min(branching, units - node * branching)
        steps.append(Step(level, node, child, children, nodes == 1))
        if nodes == 1:
            return tuple(steps)
        units, child, level = nodes, node, level + 1
