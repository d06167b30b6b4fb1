"""Knobelcup's pure core: game rules, turn state machines, views, the bracket engine.

Nothing here does I/O, reads a clock or draws random numbers: dice and seeds come in
as arguments. Only the standard library is imported (a test keeps it so).
"""
