"""The round's counting tree: recorded in any order, with repeats, the root completes
exactly when the last table reports, and no node hears from more than `branching`."""

from __future__ import annotations

import random
from collections import Counter
from itertools import pairwise

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.bracket.completion import BRANCHING, Step, completion_path

Node = tuple[int, int]  # (level, node)


class Tree:
    """The counting nodes as `infra.store.progress_store` keeps them: a set of children each.

    `record` walks a table's path the way `infra.services.progression` `_report_to_round` does:
    record step 0, and go on to step k + 1 only once node k is complete.
    """

    def __init__(self, tables: int, branching: int) -> None:
        self.tables, self.branching = tables, branching
        self.done: dict[Node, set[int]] = {}
        self.children: dict[Node, int] = {}
        self.root: Node | None = None
        self.root_complete = False
        self.entries = 0  # children recorded over all nodes: sets only grow, so an
        # unchanged count means an unchanged tree

    def record(self, index: int) -> None:
        path = completion_path(self.tables, index, self.branching)
        check_path(path, self.tables, index, self.branching)
        for step in path:
            node = (step.level, step.node)
            # every path touching a node agrees on how many children it has
            assert self.children.setdefault(node, step.children) == step.children
            if step.root:
                assert self.root in (None, node)
                self.root = node
            done = self.done.setdefault(node, set())
            if step.child not in done:
                done.add(step.child)
                self.entries += 1
            assert len(done) <= step.children <= self.branching
            if len(done) < step.children:
                return
        self.root_complete = True

    def snapshot(self) -> dict[Node, frozenset[int]]:
        return {node: frozenset(done) for node, done in self.done.items()}


def check_path(path: tuple[Step, ...], tables: int, index: int, branching: int) -> None:
    """The shape of one path: leaf first, each level's node the next level's child."""
    assert path, "every table reports somewhere"
    assert [step.level for step in path] == list(range(len(path)))
    assert path[0].child == index
    for below, above in pairwise(path):
        assert above.child == below.node
        assert not below.root
    last = path[-1]
    assert last.root and last.node == 0
    for step in path:
        assert 1 <= step.children <= branching
        assert step.node == step.child // branching
        assert 0 <= step.child - step.node * branching < step.children


def depth(tables: int, branching: int) -> int:
    """How many levels the tree has: at least one, and enough to count `tables`."""
    levels, units = 1, tables
    while units > branching:
        units = -(-units // branching)
        levels += 1
    return levels


@settings(max_examples=30, deadline=None)
@given(
    tables=st.integers(1, 5000),
    branching=st.integers(2, 40),
    seed=st.integers(0, 2**32 - 1),
)
def test_the_root_completes_exactly_with_the_last_table(
    tables: int, branching: int, seed: int
) -> None:
    rng = random.Random(seed)
    order = list(range(tables))
    rng.shuffle(order)
    tree = Tree(tables, branching)
    for count, index in enumerate(order, start=1):
        tree.record(index)
        assert tree.root_complete == (count == tables), f"after {count} of {tables} tables"
        if rng.random() < 0.05:  # a redelivery of some table already recorded
            before = tree.entries
            tree.record(order[rng.randrange(count)])
            assert tree.entries == before
            assert tree.root_complete == (count == tables)
    # every node heard from exactly its children, and no node from more than branching
    for node, done in tree.done.items():
        number = node[1]
        assert done == set(range(number * branching, number * branching + len(done)))
        assert len(done) == tree.children[node] <= branching
    assert tree.root == (depth(tables, branching) - 1, 0)
    # recording everything again changes nothing
    before = tree.snapshot()
    for index in rng.sample(range(tables), min(tables, 50)):
        tree.record(index)
    assert tree.snapshot() == before


@settings(max_examples=30, deadline=None)
@given(
    tables=st.integers(1, 5000),
    branching=st.integers(2, 40),
    seed=st.integers(0, 2**32 - 1),
)
def test_without_some_table_the_root_never_completes(
    tables: int, branching: int, seed: int
) -> None:
    rng = random.Random(seed)
    missing = rng.randrange(tables)
    order = [index for index in range(tables) if index != missing]
    rng.shuffle(order)
    tree = Tree(tables, branching)
    for index in order + rng.sample(order, min(len(order), 20)):  # repeats included
        tree.record(index)
        assert not tree.root_complete
    tree.record(missing)
    assert tree.root_complete


@settings(max_examples=100, deadline=None)
@given(data=st.data(), tables=st.integers(1, 10**6), branching=st.integers(2, 64))
def test_every_path_has_the_trees_depth(data: st.DataObject, tables: int, branching: int) -> None:
    index = data.draw(st.integers(0, tables - 1))
    path = completion_path(tables, index, branching)
    check_path(path, tables, index, branching)
    assert len(path) == depth(tables, branching)


def test_a_million_player_round() -> None:
    """About 170,000 tables: four levels, no node with more than 32 children."""
    tables = 170_000
    assert BRANCHING == 32
    nodes: dict[Node, int] = {}
    # every node is on the path of its first and its last table
    ends = {i for start in range(0, tables, 32) for i in (start, min(start + 31, tables - 1))}
    for index in sorted(ends):
        path = completion_path(tables, index)
        assert len(path) == 4
        for step in path:
            assert nodes.setdefault((step.level, step.node), step.children) == step.children
    per_level = Counter(level for level, _ in nodes)
    assert per_level == {0: 5313, 1: 167, 2: 6, 3: 1}
    assert max(nodes.values()) == 32
    # the children of each level add up to the nodes of the level below
    for level in range(4):
        below = tables if level == 0 else per_level[level - 1]
        assert sum(c for (lvl, _), c in nodes.items() if lvl == level) == below
    # and a random sample of the rest agrees
    for index in random.Random(7).sample(range(tables), 2000):
        for step in completion_path(tables, index):
            assert nodes[step.level, step.node] == step.children
    assert completion_path(tables, tables - 1) == (
        Step(0, 5312, 169_999, 16, False),
        Step(1, 166, 5312, 1, False),
        Step(2, 5, 166, 7, False),
        Step(3, 0, 5, 6, True),
    )
    assert completion_path(tables, 0) == (
        Step(0, 0, 0, 32, False),
        Step(1, 0, 0, 32, False),
        Step(2, 0, 0, 32, False),
        Step(3, 0, 0, 6, True),
    )


def test_a_single_table_is_its_own_root() -> None:
    assert completion_path(1, 0) == (Step(0, 0, 0, 1, True),)
    assert completion_path(2, 1, 2) == (Step(0, 0, 1, 2, True),)
    assert completion_path(3, 2, 2) == (Step(0, 1, 2, 1, False), Step(1, 0, 1, 2, True))


@pytest.mark.parametrize(
    ("tables", "index", "branching"),
    [
        (0, 0, 32),
        (-1, 0, 32),
        (5, -1, 32),
        (5, 5, 32),
        (5, 6, 32),
        (5, 0, 1),
        (5, 0, 0),
        (5, 0, -3),
    ],
)
def test_bad_inputs_are_refused(tables: int, index: int, branching: int) -> None:
    with pytest.raises(ValueError):
        completion_path(tables, index, branching)


@settings(max_examples=100, deadline=None)
@given(
    tables=st.integers(-5, 5000),
    index=st.integers(-5, 5005),
    branching=st.integers(-3, 40),
)
def test_out_of_range_inputs_raise_value_error(tables: int, index: int, branching: int) -> None:
    if tables >= 1 and 0 <= index < tables and branching >= 2:
        check_path(completion_path(tables, index, branching), tables, index, branching)
    else:
        with pytest.raises(ValueError):
            completion_path(tables, index, branching)
