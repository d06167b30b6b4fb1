"""One module per game, each exposing `GAME`, an object implementing `core.protocol.Game`."""
