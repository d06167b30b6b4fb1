"""A bridge for the classic Mäxchen UDP bot protocol (docs/udp-bridge.md)."""
