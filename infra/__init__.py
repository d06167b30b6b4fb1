"""Adapters around the pure core: dice sources and the in-process tournament runner."""
