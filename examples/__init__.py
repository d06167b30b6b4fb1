"""Examples of using Knobelcup: bots for `knobelcup bot` in `examples.bots`."""
