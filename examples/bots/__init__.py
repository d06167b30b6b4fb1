"""Example bots for `knobelcup bot MODULE`: each module defines `decide(view) -> action`.

Run one with, for instance, `knobelcup bot examples/bots/maexchen_honest.py --url URL
--tournament ID --count 5`. A view is the player's own view of the table, as
`GET /tournaments/{t}/tables/{table}/me` returns it; the action is one of its
`legal_actions`. The bots share helpers by relative imports: `knobelcup bot` loads a
file inside this package under its dotted name, wherever it is started from.
"""
