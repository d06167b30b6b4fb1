"""Command-line entry points: the in-process demo tournament."""
